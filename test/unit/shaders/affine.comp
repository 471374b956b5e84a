// y = y * a + b in place. Steps of this kind do not commute, so a sequence
// of them checks that dispatches run in order and see each other's writes.
#version 450
layout(local_size_x = 128) in;
layout(std430, set = 0, binding = 0) buffer Y { float y[]; };
layout(std430, set = 0, binding = 1) readonly buffer Params {
  float a;
  float b;
  uint n;
};
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n)
    y[i] = y[i] * a + b;
}
