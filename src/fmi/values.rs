//! Getters and setters: C arrays checked before use, value references resolved through the
//! model's variable table, and the slave's f64 values converted to the C type of the
//! accessor. A variable read or written with the wrong accessor is an Error naming it.

use super::instance::{Instance, Outcome};
use super::logging::Status;
use super::state::Machine;
use mbfmu_model::variables::VarType;

/// A C input array as a slice; NULL is accepted only for `n == 0`.
///
/// # Safety
/// A non-NULL `p` points to `n` readable, initialised elements.
pub unsafe fn input<'a, T>(p: *const T, n: usize, what: &str) -> Result<&'a [T], String> {
    if n == 0 {
        return Ok(&[]);
    }
    check_pointer(p, n, what)?;
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// A C output array as a slice; NULL is accepted only for `n == 0`.
///
/// # Safety
/// A non-NULL `p` points to `n` writable elements.
pub unsafe fn output<'a, T>(p: *mut T, n: usize, what: &str) -> Result<&'a mut [T], String> {
    if n == 0 {
        return Ok(&mut []);
    }
    check_pointer(p, n, what)?;
    Ok(unsafe { std::slice::from_raw_parts_mut(p, n) })
}

/// A C output scalar.
///
/// # Safety
/// A non-NULL `p` points to a writable `T`.
pub unsafe fn out_scalar<'a, T>(p: *mut T, what: &str) -> Result<&'a mut T, String> {
    check_pointer(p, 1, what)?;
    Ok(unsafe { &mut *p })
}

fn check_pointer<T>(p: *const T, n: usize, what: &str) -> Result<(), String> {
    if p.is_null() {
        return Err(format!("argument {what} is NULL but {n} element(s) are needed"));
    }
    if !p.is_aligned() {
        return Err(format!("argument {what} is not aligned for its type"));
    }
    if n.checked_mul(std::mem::size_of::<T>()).is_none_or(|bytes| bytes > isize::MAX as usize) {
        return Err(format!("argument {what}: {n} elements are more than any array can hold"));
    }
    Ok(())
}

#[cold]
fn unrepresentable(function: &str, vr: u32, x: f64) -> String {
    format!("value {x} of value reference {vr} cannot be represented by {function}")
}

/// Integer conversions for Integer/Enumeration variables (carried exactly as f64). The cast
/// truncates towards zero and saturates (NaN gives 0), so x is an integer in range exactly
/// when the cast converts back to it: no call of the `fract` library function per value.
pub fn to_i32(x: f64) -> Option<i32> {
    let i = x as i32;
    (f64::from(i) == x).then_some(i)
}

pub fn to_i64(x: f64) -> Option<i64> {
    // 2^63 is exactly representable; i64::MAX is not (it converts back to 2^63).
    let i = x as i64;
    (x < 2f64.powi(63) && i as f64 == x).then_some(i)
}

impl<S: Machine> Instance<S> {
    /// Checks that `vr` exists and has one of the types `accepts` admits.
    #[inline]
    fn typed_variable(&self, function: &str, vr: u32, accepts: &[VarType]) -> Result<(), String> {
        match self.slave.variables().get(vr as usize) {
            Some(v) if accepts.contains(&v.ty) => Ok(()),
            _ => Err(self.type_error(function, vr)),
        }
    }

    /// Why [`Instance::typed_variable`] refused `vr`.
    #[cold]
    fn type_error(&self, function: &str, vr: u32) -> String {
        match self.slave.variable(vr) {
            Err(e) => e.to_string(),
            Ok(v) => format!(
                "variable '{}' (value reference {vr}) is of type {}; {function} cannot access it",
                v.name,
                S::type_name(v.ty)
            ),
        }
    }

    /// Reads `vrs` into `out` (same length), converting each value with `convert`.
    #[inline]
    pub fn read<T>(
        &mut self,
        function: &str,
        vrs: &[u32],
        out: &mut [T],
        accepts: &[VarType],
        convert: impl Fn(f64) -> Option<T>,
    ) -> Outcome {
        debug_assert_eq!(vrs.len(), out.len());
        // A host's read of many outputs: one pass over the output cache.
        if self.slave.read_outputs(vrs, accepts, out, &convert) {
            return Ok(Status::Ok);
        }
        for (&vr, slot) in vrs.iter().zip(out.iter_mut()) {
            let x = match self.slave.cached_output(vr, accepts) {
                Some(x) => x,
                None => {
                    self.typed_variable(function, vr, accepts)?;
                    self.slave.get(vr).map_err(|e| e.to_string())?
                }
            };
            *slot = match convert(x) {
                Some(v) => v,
                None => return Err(unrepresentable(function, vr, x)),
            };
        }
        Ok(Status::Ok)
    }

    /// Writes `values` to `vrs` (same length); the slave checks causality, phase,
    /// finiteness, bounds and enumeration items.
    pub fn write<T: Copy>(
        &mut self,
        function: &str,
        vrs: &[u32],
        values: &[T],
        accepts: &[VarType],
        convert: impl Fn(T) -> f64,
    ) -> Outcome {
        debug_assert_eq!(vrs.len(), values.len());
        for (&vr, &value) in vrs.iter().zip(values) {
            self.typed_variable(function, vr, accepts)?;
            self.slave.set(vr, convert(value)).map_err(|e| e.to_string())?;
        }
        Ok(Status::Ok)
    }

    /// For accessors of a type no variable of this FMU has (FMI 3 Float32, Binary, ...; FMI 2
    /// and 3 Boolean and String): an empty request is fine, any value reference is an error.
    pub fn no_variables_of_this_type(&self, function: &str, vrs: &[u32]) -> Outcome {
        match vrs.first() {
            None => Ok(Status::Ok),
            Some(&vr) => self.typed_variable(function, vr, &[]).map(|_| Status::Ok),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_conversions_are_exact() {
        assert_eq!(to_i32(3.0), Some(3));
        assert_eq!(to_i32(-2147483648.0), Some(i32::MIN));
        assert_eq!(to_i32(2147483648.0), None);
        assert_eq!(to_i32(1.5), None);
        assert_eq!(to_i32(f64::NAN), None);
        assert_eq!(to_i64(2.0), Some(2));
        assert_eq!(to_i64(9.3e18), None);
        assert_eq!(to_i64(f64::INFINITY), None);
        assert_eq!(to_i64(2f64.powi(63)), None);
        assert_eq!(to_i64(-(2f64.powi(63))), Some(i64::MIN));
        assert_eq!(to_i64(-0.5), None);
        assert_eq!((to_i32(-0.0), to_i32(-1.0), to_i32(f64::NEG_INFINITY)), (Some(0), Some(-1), None));
        assert_eq!((to_i32(f64::from(i32::MAX)), to_i32(-2147483648.5), to_i32(1e-300)), (Some(i32::MAX), None, None));
    }

    #[test]
    fn null_arrays_are_rejected_unless_empty() {
        unsafe {
            assert!(input::<f64>(std::ptr::null(), 0, "vr").unwrap().is_empty());
            assert!(input::<f64>(std::ptr::null(), 1, "vr").unwrap_err().contains("NULL"));
            assert!(output::<f64>(std::ptr::null_mut(), 2, "value").unwrap_err().contains("value"));
            let x = [1u32, 2];
            assert_eq!(input(x.as_ptr(), 2, "vr").unwrap(), &[1, 2]);
            assert!(input(x.as_ptr(), usize::MAX, "vr").is_err());
        }
    }
}
