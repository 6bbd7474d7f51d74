// The bodies' boundary particles, binned in the liquid grid's cells (src/gpu/bodies.rs),
// gathered over a block of cells in the CPU's order (BoundaryGrid::sums); appended to the
// passes that sum them, each of which binds `boundary_start` and `boundary` (xyz: position,
// w: weight).

// The bodies' kernel sums (sum w (1-q)^2, sum w (1-q)^3) at x over the cells of `blk`.
fn body_sums(x: vec3<f32>, blk: Block) -> vec2<f32> {
    let h2 = P.h * P.h;
    var b = vec2<f32>(0.0);
    let rows = block_rows(blk);
    for (var row = 0u; row < rows; row = row + 1u) {
        let cells = block_row(blk, row);
        let start = boundary_start[cells.x];
        let end = boundary_start[cells.y];
        for (var j = start; j < end; j = j + 1u) {
            let pb = boundary[j];
            let r = pb.xyz - x;
            let r2 = dot(r, r);
            if (r2 >= h2) {
                continue;
            }
            let a = 1.0 - sqrt(r2) * P.inv_h;
            if (a > 0.0) {
                let a2 = a * a;
                b = b + vec2<f32>(pb.w * a2, pb.w * a2 * a);
            }
        }
    }
    return b;
}
