// f16 arithmetic as well as storage (Float16 + StorageBuffer16BitAccess),
// the capabilities the compiler's f16 kernels declare.
#version 450
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { float16_t src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { float16_t dst[]; };
layout(std430, set = 0, binding = 2) readonly buffer Params { uint n; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n)
    dst[i] = src[i] * float16_t(0.5) - float16_t(3.0);
}
