//! Links the `mbfmu` executable at a fixed address instead of as a position-independent
//! executable. A PIE of this size carries about 9 800 relative relocations, which the dynamic
//! loader applies at every start, copying the 40 pages they touch (page faults of 2-3 us each
//! on a virtual machine): about 0.15 ms of every run, which matters to studies that start the
//! command thousands of times. The code is still compiled position-independent; only the
//! executable's load address is fixed (no address randomization of its own image).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
