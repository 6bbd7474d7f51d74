//! The `sphrigid` command line.
fn main() -> std::process::ExitCode {
    sphrigid::cli::main()
}
