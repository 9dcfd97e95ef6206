//! The FMI 2.0 / 3.0 C ABI (exported fmi2* / fmi3* functions): instance lifecycle, state
//! machine, value references, logging, FMU state. No physics.
