// One sum per workgroup of 256 values through a tree in workgroup memory:
// wrong results if shared memory or barrier() does not work.
#version 450
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint sums[]; };
layout(std430, set = 0, binding = 2) readonly buffer Params { uint n; };
shared uint partial[256];
void main() {
  uint lane = gl_LocalInvocationID.x;
  uint i = gl_GlobalInvocationID.x;
  partial[lane] = i < n ? src[i] : 0u;
  barrier();
  for (uint stride = 128u; stride > 0u; stride >>= 1) {
    if (lane < stride)
      partial[lane] += partial[lane + stride];
    barrier();
  }
  if (lane == 0u)
    sums[gl_WorkGroupID.x] = partial[0];
}
