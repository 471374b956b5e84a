// A 2-D grid over a width x height image: each invocation adds its own
// coordinates, so a wrong x/y mapping shows in every element.
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, set = 0, binding = 0) readonly buffer In { float src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { float dst[]; };
layout(std430, set = 0, binding = 2) readonly buffer Params {
  uint width;
  uint height;
};
void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x >= width || p.y >= height)
    return;
  uint i = p.y * width + p.x;
  dst[i] = src[i] + float(p.x) * 1000.0 + float(p.y);
}
