// One subgroupAdd per subgroup, plus the subgroup size the shader sees, to
// compare with the size the device reports.
#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint sums[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Size { uint size; };
void main() {
  uint total = subgroupAdd(src[gl_GlobalInvocationID.x]);
  if (subgroupElect())
    sums[gl_WorkGroupID.x * gl_NumSubgroups + gl_SubgroupID] = total;
  if (gl_GlobalInvocationID.x == 0u)
    size = gl_SubgroupSize;
}
