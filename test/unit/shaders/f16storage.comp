// f16 in storage buffers, f32 arithmetic: the storage-only form
// (StorageBuffer16BitAccess without Float16).
#version 450
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { float16_t src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { float16_t dst[]; };
layout(std430, set = 0, binding = 2) readonly buffer Params { uint n; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n)
    dst[i] = float16_t(float(src[i]) * 2.0 + 1.0);
}
