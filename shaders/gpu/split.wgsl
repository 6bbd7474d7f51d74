// An array bound in two parts of one buffer (src/gpu/split.rs): NAME_0 holds the indices
// below P.split, NAME_1 the rest. kernel.rs writes this once per split array of a pass, with
// NAME, TYPE, FIRST and SECOND replaced by the array's name, element type and the two parts'
// bindings. Passes read an element with NAME_get(i) and write it with NAME_set(i, v); the
// values are the same as one binding's, so a split run is bit-identical to an unsplit one.
@group(0) @binding(FIRST) var<storage, read_write> NAME_0: array<TYPE>;
@group(0) @binding(SECOND) var<storage, read_write> NAME_1: array<TYPE>;

fn NAME_get(i: u32) -> TYPE {
    if (i < P.split) {
        return NAME_0[i];
    }
    return NAME_1[i - P.split];
}

fn NAME_set(i: u32, v: TYPE) {
    if (i < P.split) {
        NAME_0[i] = v;
    } else {
        NAME_1[i - P.split] = v;
    }
}
