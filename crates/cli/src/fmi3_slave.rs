//! The FMI 3.0 co-simulation slave of `simulate` and `sweep`, written once for the two kinds
//! of instances it drives: an archive's, made by the `fmi` crate (fmu.rs), and a built-in
//! model's, made by the FMU library's functions linked into this command (linked.rs). Both
//! answer the same calls ([`Fmi3Calls`], named and typed as the `fmi` crate's methods).

use crate::error::{Error, Result};
use crate::fmu::{cstring, scatter, sized, status_error, Buffers, Lease, ReadGroup, Slave, StepOutcome, Value};
use crate::modeldesc::{VarType, Variable};
use fmi::fmi3::import::Fmi3Import;
use fmi::fmi3::instance::InstanceCS as Fmi3Instance;
use fmi::fmi3::{Fmi3Error, Fmi3Res};
use std::ffi::CString;
use std::sync::Arc;

/// What the `fmi` crate's calls return.
pub(crate) type FmiResult<T> = std::result::Result<T, Fmi3Error>;

/// Declares [`Fmi3Calls`] with a getter and a setter per C type, and implements it for the
/// `fmi` crate's instances by calling the crate's methods of the same names.
macro_rules! fmi3_calls {
    ($(($get:ident, $set:ident, $t:ty)),* $(,)?) => {
        /// The FMI 3 functions a co-simulation slave calls.
        pub(crate) trait Fmi3Calls {
            $(
                fn $get(&mut self, vrs: &[u32], values: &mut [$t]) -> FmiResult<Fmi3Res>;
                fn $set(&mut self, vrs: &[u32], values: &[$t]) -> FmiResult<Fmi3Res>;
            )*
            fn set_string(&mut self, vrs: &[u32], values: &[CString]) -> FmiResult<()>;
            fn enter_initialization_mode(
                &mut self,
                tolerance: Option<f64>,
                start: f64,
                stop: Option<f64>,
            ) -> FmiResult<Fmi3Res>;
            fn exit_initialization_mode(&mut self) -> FmiResult<Fmi3Res>;
            #[allow(clippy::too_many_arguments)]
            fn do_step(
                &mut self,
                t: f64,
                h: f64,
                no_set_state_prior: bool,
                event_needed: &mut bool,
                terminate: &mut bool,
                early_return: &mut bool,
                last_successful_time: &mut f64,
            ) -> FmiResult<Fmi3Res>;
            fn terminate(&mut self) -> FmiResult<Fmi3Res>;
        }

        impl Fmi3Calls for Fmi3Instance {
            $(
                fn $get(&mut self, vrs: &[u32], values: &mut [$t]) -> FmiResult<Fmi3Res> {
                    fmi::fmi3::GetSet::$get(self, vrs, values)
                }
                fn $set(&mut self, vrs: &[u32], values: &[$t]) -> FmiResult<Fmi3Res> {
                    fmi::fmi3::GetSet::$set(self, vrs, values)
                }
            )*
            fn set_string(&mut self, vrs: &[u32], values: &[CString]) -> FmiResult<()> {
                fmi::fmi3::GetSet::set_string(self, vrs, values)
            }
            fn enter_initialization_mode(
                &mut self,
                tolerance: Option<f64>,
                start: f64,
                stop: Option<f64>,
            ) -> FmiResult<Fmi3Res> {
                fmi::fmi3::Common::enter_initialization_mode(self, tolerance, start, stop)
            }
            fn exit_initialization_mode(&mut self) -> FmiResult<Fmi3Res> {
                fmi::fmi3::Common::exit_initialization_mode(self)
            }
            fn do_step(
                &mut self,
                t: f64,
                h: f64,
                no_set_state_prior: bool,
                event_needed: &mut bool,
                terminate: &mut bool,
                early_return: &mut bool,
                last_successful_time: &mut f64,
            ) -> FmiResult<Fmi3Res> {
                fmi::fmi3::CoSimulation::do_step(
                    self,
                    t,
                    h,
                    no_set_state_prior,
                    event_needed,
                    terminate,
                    early_return,
                    last_successful_time,
                )
            }
            fn terminate(&mut self) -> FmiResult<Fmi3Res> {
                fmi::fmi3::Common::terminate(self)
            }
        }
    };
}

/// Every C type of the getters and setters, as the `fmi` crate names them.
macro_rules! with_fmi3_types {
    ($m:ident) => {
        $m!(
            (get_float64, set_float64, f64),
            (get_float32, set_float32, f32),
            (get_int8, set_int8, i8),
            (get_int16, set_int16, i16),
            (get_int32, set_int32, i32),
            (get_int64, set_int64, i64),
            (get_uint8, set_uint8, u8),
            (get_uint16, set_uint16, u16),
            (get_uint32, set_uint32, u32),
            (get_uint64, set_uint64, u64),
            (get_boolean, set_boolean, bool),
        );
    };
}
with_fmi3_types!(fmi3_calls);

/// An FMI 3 co-simulation slave: an instance behind [`Fmi3Calls`] and the getters' buffers.
pub(crate) struct Fmi3Slave<I: Fmi3Calls> {
    // Field order = drop order: free the instance before the import deletes the unpacked files.
    pub(crate) instance: I,
    pub(crate) buffers: Buffers,
    /// What an archive's instance needs to stay in place (None for a linked built-in model).
    pub(crate) _keep: Option<(Arc<Fmi3Import>, Lease)>,
}

/// One `fmi3Get<Type>` call into the reused buffer of its type, converted to f64 columns.
macro_rules! get3 {
    ($instance:expr, $buffer:expr, $g:expr, $row:expr, $getter:ident, $name:literal) => {{
        let v = sized(&mut $buffer, $g.vrs.len());
        $instance.$getter(&$g.vrs, v).map_err(|e| status_error($name, e))?;
        scatter($g, v, $row, |x| x as f64);
    }};
}

/// One `fmi3Set<Type>` call of an integer after a range check.
macro_rules! set3_int {
    ($instance:expr, $var:expr, $i:expr, $setter:ident, $t:ty) => {{
        let value = <$t>::try_from(*$i)
            .map_err(|_| Error::msg(format!("{} is out of range for {} ({})", $i, $var.name, stringify!($t))))?;
        $instance.$setter(&[$var.vr], &[value]).map(drop)
    }};
}

impl<I: Fmi3Calls> Slave for Fmi3Slave<I> {
    fn set(&mut self, var: &Variable, value: &Value) -> Result<()> {
        let vr = [var.vr];
        let i = &mut self.instance;
        let result = match (var.ty, value) {
            (VarType::Float64, Value::Real(x)) => i.set_float64(&vr, &[*x]).map(drop),
            (VarType::Float32, Value::Real(x)) => i.set_float32(&vr, &[*x as f32]).map(drop),
            (VarType::Int8, Value::Int(n)) => set3_int!(i, var, n, set_int8, i8),
            (VarType::Int16, Value::Int(n)) => set3_int!(i, var, n, set_int16, i16),
            (VarType::Int32, Value::Int(n)) => set3_int!(i, var, n, set_int32, i32),
            // FMI 3 reads and writes enumerations as Int64 (FMI 3.0 Sect. 2.4.7.4).
            (VarType::Int64 | VarType::Enumeration, Value::Int(n)) => i.set_int64(&vr, &[*n]).map(drop),
            (VarType::UInt8, Value::Int(n)) => set3_int!(i, var, n, set_uint8, u8),
            (VarType::UInt16, Value::Int(n)) => set3_int!(i, var, n, set_uint16, u16),
            (VarType::UInt32, Value::Int(n)) => set3_int!(i, var, n, set_uint32, u32),
            (VarType::UInt64, Value::Int(n)) => set3_int!(i, var, n, set_uint64, u64),
            (VarType::Boolean, Value::Bool(b)) => i.set_boolean(&vr, &[*b]).map(drop),
            (VarType::String, Value::Str(s)) => i.set_string(&vr, &[cstring(s)?]),
            (ty, _) => return Err(Error::msg(format!("cannot set {} variables", ty.name()))),
        };
        result.map_err(|e| status_error(&format!("setting {}: fmi3Set{}", var.name, fmi3_type(var.ty)), e))
    }

    fn enter_initialization(&mut self, tolerance: Option<f64>, start: f64, stop: f64) -> Result<()> {
        self.instance
            .enter_initialization_mode(tolerance, start, Some(stop))
            .map_err(|e| status_error("fmi3EnterInitializationMode", e))?;
        Ok(())
    }

    fn exit_initialization(&mut self) -> Result<()> {
        self.instance.exit_initialization_mode().map_err(|e| status_error("fmi3ExitInitializationMode", e))?;
        Ok(())
    }

    fn read(&mut self, groups: &[ReadGroup], row: &mut [f64]) -> Result<()> {
        let (i, b) = (&mut self.instance, &mut self.buffers);
        for g in groups {
            match g.ty {
                VarType::Float64 => match &g.span {
                    Some(span) => {
                        i.get_float64(&g.vrs, &mut row[span.clone()]).map_err(|e| status_error("fmi3GetFloat64", e))?;
                    }
                    None => get3!(i, b.f64, g, row, get_float64, "fmi3GetFloat64"),
                },
                VarType::Float32 => get3!(i, b.f32, g, row, get_float32, "fmi3GetFloat32"),
                VarType::Int8 => get3!(i, b.i8, g, row, get_int8, "fmi3GetInt8"),
                VarType::Int16 => get3!(i, b.i16, g, row, get_int16, "fmi3GetInt16"),
                VarType::Int32 => get3!(i, b.i32, g, row, get_int32, "fmi3GetInt32"),
                VarType::Int64 | VarType::Enumeration => get3!(i, b.i64, g, row, get_int64, "fmi3GetInt64"),
                VarType::UInt8 => get3!(i, b.u8, g, row, get_uint8, "fmi3GetUInt8"),
                VarType::UInt16 => get3!(i, b.u16, g, row, get_uint16, "fmi3GetUInt16"),
                VarType::UInt32 => get3!(i, b.u32, g, row, get_uint32, "fmi3GetUInt32"),
                VarType::UInt64 => get3!(i, b.u64, g, row, get_uint64, "fmi3GetUInt64"),
                VarType::Boolean => {
                    let v = sized(&mut b.bool, g.vrs.len());
                    i.get_boolean(&g.vrs, v).map_err(|e| status_error("fmi3GetBoolean", e))?;
                    scatter(g, v, row, |b| if b { 1.0 } else { 0.0 });
                }
                other => return Err(Error::msg(format!("cannot read {} variables", other.name()))),
            }
        }
        Ok(())
    }

    fn step(&mut self, t: f64, h: f64) -> StepOutcome {
        let (mut event_needed, mut terminate, mut early_return, mut last) = (false, false, false, t);
        let result = self.instance.do_step(t, h, true, &mut event_needed, &mut terminate, &mut early_return, &mut last);
        match result {
            Ok(_) if terminate => StepOutcome::Terminated { at: Some(last) },
            Ok(_) => StepOutcome::Ok,
            Err(Fmi3Error::Discard) if terminate => StepOutcome::Terminated { at: Some(last) },
            Err(Fmi3Error::Discard) => StepOutcome::Failed { status: "Discard", last_successful_time: Some(last) },
            Err(Fmi3Error::Error) => StepOutcome::Failed { status: "Error", last_successful_time: None },
            Err(Fmi3Error::Fatal) => StepOutcome::Failed { status: "Fatal", last_successful_time: None },
        }
    }

    fn terminate(&mut self) -> Result<()> {
        self.instance.terminate().map_err(|e| status_error("fmi3Terminate", e))?;
        Ok(())
    }
}

fn fmi3_type(ty: VarType) -> &'static str {
    match ty {
        VarType::Enumeration => "Int64",
        VarType::Float64 => "Float64",
        VarType::Float32 => "Float32",
        VarType::Int8 => "Int8",
        VarType::Int16 => "Int16",
        VarType::Int32 => "Int32",
        VarType::Int64 => "Int64",
        VarType::UInt8 => "UInt8",
        VarType::UInt16 => "UInt16",
        VarType::UInt32 => "UInt32",
        VarType::UInt64 => "UInt64",
        VarType::Boolean => "Boolean",
        VarType::String => "String",
        VarType::Binary => "Binary",
        VarType::Clock => "Clock",
    }
}
