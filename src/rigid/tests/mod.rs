//! Tests of the bodies' sampling: the inside test, lattices and clump inertia.
mod sampling;
