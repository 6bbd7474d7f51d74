// A per-particle array that a pass reads with NAME_get(i) and writes with NAME_set(i, v)
// (src/gpu/split.rs). kernel.rs writes one of the two sections below once per such array, with
// NAME, TYPE, FIRST, SECOND and ACCESS replaced by the array's name, element type, its parts'
// bindings and its access (`read` where the pass only reads it, which drops NAME_set, else
// `read_write`): where the scene's arrays exceed one storage binding, the two-part section (NAME_0
// holds the indices below P.split, NAME_1 the rest, of one buffer); else the one-part section.
// The values are the same either way, so a split run is bit-identical to an unsplit one.
// two parts
@group(0) @binding(FIRST) var<storage, ACCESS> NAME_0: array<TYPE>;
@group(0) @binding(SECOND) var<storage, ACCESS> NAME_1: array<TYPE>;

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
// one part
@group(0) @binding(FIRST) var<storage, ACCESS> NAME_0: array<TYPE>;

fn NAME_get(i: u32) -> TYPE {
    return NAME_0[i];
}

fn NAME_set(i: u32, v: TYPE) {
    NAME_0[i] = v;
}
