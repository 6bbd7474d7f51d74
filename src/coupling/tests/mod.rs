//! Tests of the contacts between bodies, walls and liquid.
mod contacts;
