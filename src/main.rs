//! The `fathom` binary: parses the command line and hands off to the library. Errors become one
//! clear line on stderr and an exit code (2 for usage and configuration, 1 for anything else).

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::run()
}
