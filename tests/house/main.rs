//! The house: the README and docs held to the program, the scene-key reference held to the parser,
//! and the module layout.
//! One test binary per area, so the crate is linked a few times rather than once per file.
mod docs;
mod docs_scene_keys;
mod layout;
