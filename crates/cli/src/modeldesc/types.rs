//! The typed model a modelDescription.xml is read into: the FMI version, variables with their
//! types, causality, units and bounds, type definitions, the default experiment, co-simulation
//! capabilities and output dependencies.

use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FmiVersion {
    V2,
    V3,
}

impl FmiVersion {
    pub fn label(self) -> &'static str {
        match self {
            FmiVersion::V2 => "FMI 2.0",
            FmiVersion::V3 => "FMI 3.0",
        }
    }
}

/// Type of a variable. FMI 2 Real/Integer map to Float64/Int32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarType {
    Float64,
    Float32,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Boolean,
    Enumeration,
    String,
    Binary,
    Clock,
}

impl VarType {
    pub(super) fn from_element(name: &str, version: FmiVersion) -> Option<VarType> {
        use VarType::*;
        Some(match (version, name) {
            (FmiVersion::V2, "Real") => Float64,
            (FmiVersion::V2, "Integer") => Int32,
            (FmiVersion::V3, "Float64") => Float64,
            (FmiVersion::V3, "Float32") => Float32,
            (FmiVersion::V3, "Int8") => Int8,
            (FmiVersion::V3, "Int16") => Int16,
            (FmiVersion::V3, "Int32") => Int32,
            (FmiVersion::V3, "Int64") => Int64,
            (FmiVersion::V3, "UInt8") => UInt8,
            (FmiVersion::V3, "UInt16") => UInt16,
            (FmiVersion::V3, "UInt32") => UInt32,
            (FmiVersion::V3, "UInt64") => UInt64,
            (FmiVersion::V3, "Binary") => Binary,
            (FmiVersion::V3, "Clock") => Clock,
            (_, "Boolean") => Boolean,
            (_, "Enumeration") => Enumeration,
            (_, "String") => String,
            _ => return None,
        })
    }

    /// Whether values of this type fit a numeric CSV column.
    pub fn is_numeric(self) -> bool {
        !matches!(self, VarType::String | VarType::Binary | VarType::Clock)
    }

    pub fn name(self) -> &'static str {
        use VarType::*;
        match self {
            Float64 => "Float64 (Real)",
            Float32 => "Float32",
            Int8 => "Int8",
            Int16 => "Int16",
            Int32 => "Int32 (Integer)",
            Int64 => "Int64",
            UInt8 => "UInt8",
            UInt16 => "UInt16",
            UInt32 => "UInt32",
            UInt64 => "UInt64",
            Boolean => "Boolean",
            Enumeration => "Enumeration",
            String => "String",
            Binary => "Binary",
            Clock => "Clock",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Causality {
    Parameter,
    CalculatedParameter,
    StructuralParameter,
    Input,
    Output,
    Local,
    Independent,
}

impl Causality {
    pub(super) fn parse(s: &str) -> Option<Causality> {
        Some(match s {
            "parameter" => Causality::Parameter,
            "calculatedParameter" => Causality::CalculatedParameter,
            "structuralParameter" => Causality::StructuralParameter,
            "input" => Causality::Input,
            "output" => Causality::Output,
            "local" => Causality::Local,
            "independent" => Causality::Independent,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug)]
pub struct Variable {
    pub name: String,
    pub vr: u32,
    pub ty: VarType,
    pub causality: Causality,
    /// `constant`, `fixed`, `tunable`, `discrete` or `continuous` (as written or defaulted).
    pub variability: String,
    /// `exact`, `approx`, `calculated`, or None when not written.
    pub initial: Option<String>,
    pub description: Option<String>,
    /// The variable's unit, or its declared type's.
    pub unit: Option<String>,
    pub declared_type: Option<String>,
    pub start: Option<String>,
    /// Bounds of the value (the variable's, else its declared type's), for numeric variables.
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// FMI 3 arrays (a `<Dimension>` child): the CLI handles scalars only.
    pub is_array: bool,
    /// FMI 3 `intermediateUpdate="true"`: may be set or read during intermediate update mode.
    pub intermediate_update: bool,
}

/// A type definition: its unit (numeric types) and items (enumerations).
#[derive(Clone, Debug, Default)]
pub struct TypeDef {
    pub unit: Option<String>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub items: Vec<EnumItem>,
}

#[derive(Clone, Debug)]
pub struct EnumItem {
    pub name: String,
    pub value: i64,
    pub description: Option<String>,
}

#[derive(Clone, Debug, Default)]
pub struct DefaultExperiment {
    pub start: Option<f64>,
    pub stop: Option<f64>,
    pub step: Option<f64>,
    pub tolerance: Option<f64>,
}

/// Co-simulation capability flags the system master uses (FMI 2.0.4 Sect. 4.3.1, FMI 3.0
/// Sect. 4.3.1); absent attributes take the standards' defaults.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CoSimulationCapabilities {
    /// FMI 2 `canInterpolateInputs`: takes input derivatives (fmi2SetRealInputDerivatives).
    pub can_interpolate_inputs: bool,
    /// `maxOutputDerivativeOrder`: highest order fmi2GetRealOutputDerivatives /
    /// fmi3GetOutputDerivatives deliver (0: none).
    pub max_output_derivative_order: u32,
    /// FMI 3 `providesIntermediateUpdate`: calls the importer back during a step.
    pub provides_intermediate_update: bool,
}

/// One output's entry of `<ModelStructure>`: on which variables (indices into
/// [`ModelInfo::variables`]) it depends. `None`: no `dependencies` attribute, which the
/// standards read as "depends on every known" (FMI 2.0.4 Sect. 2.2.8, FMI 3.0 Sect. 2.4.8).
#[derive(Clone, Debug, PartialEq)]
pub struct OutputDependency {
    pub output: usize,
    pub dependencies: Option<Vec<usize>>,
}

#[derive(Clone, Debug)]
pub struct ModelInfo {
    pub version: FmiVersion,
    pub fmi_version: String,
    pub model_name: String,
    pub description: Option<String>,
    /// guid (FMI 2) or instantiationToken (FMI 3).
    pub token: String,
    /// modelIdentifier of `<CoSimulation>`, None for an FMU without co-simulation.
    pub cs_identifier: Option<String>,
    pub has_model_exchange: bool,
    pub has_scheduled_execution: bool,
    pub experiment: DefaultExperiment,
    /// Names of the declared log categories.
    pub log_categories: Vec<String>,
    pub variables: Vec<Variable>,
    pub types: HashMap<String, TypeDef>,
    pub capabilities: CoSimulationCapabilities,
    /// `<ModelStructure>` outputs and their dependencies.
    pub output_dependencies: Vec<OutputDependency>,
}
