//! What Rust's runtime start does before and after `main` that this command relies on, for an
//! executable whose `main` the C runtime calls directly (`#![no_main]`).
//!
//! Rust's start also prepares the report of a stack overflow: it reads the whole of
//! `/proc/self/maps` to find the main thread's stack and gives every thread an alternate
//! signal stack (three system calls at its start, one more at its end). That cost a fixed
//! 0.1 ms of each run (measured on a program that prints one line: 0.98 -> 0.88 ms from spawn
//! to exit, best of 300), a twentieth of the command's own share of a short simulation. A
//! stack overflow now ends the process with SIGSEGV instead of a message; no code here
//! recurses without bound.

use std::io::Write;

/// Before anything else: the standard streams are open (a closed one gets /dev/null, so that
/// no file opened later takes its number and receives what was meant for the terminal), and
/// writing to a closed pipe is an error the command reports, not a signal that ends it (both
/// as Rust's start does).
pub fn prepare() {
    #[cfg(unix)]
    {
        let mut fds = [0, 1, 2].map(|fd| libc::pollfd { fd, events: 0, revents: 0 });
        // SAFETY: `fds` is a valid array of three pollfd; a zero timeout does not block.
        let polled = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 0) };
        if polled > 0 {
            // Opening takes the lowest free number: the closed streams' in turn.
            for _ in fds.iter().filter(|fd| fd.revents & libc::POLLNVAL != 0) {
                // SAFETY: a constant, NUL-terminated path.
                unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) };
            }
        }
        // SAFETY: ignoring a signal installs no handler code.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    }
}

/// At the end: what is left in standard output's buffer is written.
pub fn finish() {
    let _ = std::io::stdout().flush();
}
