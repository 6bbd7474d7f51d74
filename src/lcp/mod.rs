//! Linear complementarity solvers: dense Lemke and Dantzig, and the structured contact form.
