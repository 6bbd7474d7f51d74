// Cell counts: one atomic increment per particle (the body boundary particles'; the liquid's
// cell-index pass counts its own). The counts start clear: every scatter counts them back down.
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> cell_of: array<u32>;
@group(0) @binding(2) var<storage, read_write> count: array<atomic<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(gid, nwg);
    if (k >= P.n) {
        return;
    }
    atomicAdd(&count[cell_of[k]], 1u);
}

