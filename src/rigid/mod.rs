//! Rigid bodies as clumps of sphere particles: mass properties, sampling, motion.
