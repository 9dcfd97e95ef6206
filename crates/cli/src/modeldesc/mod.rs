//! A version-independent reading of modelDescription.xml (FMI 2.0 and 3.0): just what the CLI
//! needs to set, read, label and plot variables. The `fmi` crate's own schema types drop
//! units and enumeration items, so the CLI reads the XML itself with quick-xml.

mod queries;
mod types;
mod xml;

pub use types::{
    Causality, CoSimulationCapabilities, DefaultExperiment, EnumItem, FmiVersion, ModelInfo, OutputDependency, TypeDef,
    VarType, Variable,
};
pub use xml::parse;

#[cfg(test)]
mod tests {
    use super::*;

    const FMI2: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="M" guid="{x}">
  <CoSimulation modelIdentifier="M_id"/>
  <TypeDefinitions>
    <SimpleType name="Length"><Real unit="m" min="0"/></SimpleType>
    <SimpleType name="Method"><Enumeration><Item name="a" value="1"/><Item name="b" value="2"/></Enumeration></SimpleType>
  </TypeDefinitions>
  <LogCategories><Category name="logStatusError"/><Category name="logAll"/></LogCategories>
  <DefaultExperiment startTime="0" stopTime="2.5" stepSize="0.01"/>
  <ModelVariables>
    <ScalarVariable name="time" valueReference="0" causality="independent"><Real/></ScalarVariable>
    <ScalarVariable name="m" valueReference="1" causality="parameter" variability="fixed"><Enumeration declaredType="Method" start="1"/></ScalarVariable>
    <ScalarVariable name="x" valueReference="2" causality="output"><Real declaredType="Length"/></ScalarVariable>
    <ScalarVariable name="n" valueReference="3" causality="output"><Integer/></ScalarVariable>
    <ScalarVariable name="k" valueReference="4" causality="parameter"><Real declaredType="Length" start="1" min="0.5" max="2"/></ScalarVariable>
  </ModelVariables>
  <ModelStructure/>
</fmiModelDescription>"#;

    #[test]
    fn reads_fmi2_types_units_and_items() {
        let m = parse(FMI2).unwrap();
        assert_eq!(m.version, FmiVersion::V2);
        assert_eq!(m.cs_identifier.as_deref(), Some("M_id"));
        assert_eq!(m.experiment.stop, Some(2.5));
        assert_eq!(m.log_categories, ["logStatusError", "logAll"]);
        let x = m.variable("x").unwrap();
        assert_eq!((x.ty, x.unit.as_deref(), x.variability.as_str()), (VarType::Float64, Some("m"), "continuous"));
        let n = m.variable("n").unwrap();
        assert_eq!((n.ty, n.variability.as_str()), (VarType::Int32, "discrete"));
        let e = m.variable("m").unwrap();
        assert_eq!(e.ty, VarType::Enumeration);
        let items: Vec<_> = m.enum_items(e).iter().map(|i| (i.name.as_str(), i.value)).collect();
        assert_eq!(items, [("a", 1), ("b", 2)]);
        assert_eq!((x.min, x.max), (Some(0.0), None), "bounds of the declared type");
        let k = m.variable("k").unwrap();
        assert_eq!((k.min, k.max), (Some(0.5), Some(2.0)), "the variable's own bounds win");
        assert_eq!(m.outputs().count(), 2);
        assert!(m.variable("time").unwrap().settable().is_err());
        assert!(e.settable().is_ok());
    }

    #[test]
    fn reads_fmi3_variables() {
        let xml = r#"<fmiModelDescription fmiVersion="3.0" modelName="M" instantiationToken="t">
  <ModelExchange modelIdentifier="M"/>
  <TypeDefinitions><Float64Type name="V" unit="m/s"/><EnumerationType name="E"><Item name="on" value="3"/></EnumerationType></TypeDefinitions>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Float64 name="v" valueReference="1" causality="output" declaredType="V"/>
    <Enumeration name="e" valueReference="2" causality="parameter" variability="fixed" declaredType="E" start="3"/>
    <Int32 name="i" valueReference="4" causality="parameter" variability="fixed" start="3" min="1" max="x"/>
    <Float64 name="arr" valueReference="3" causality="output"><Dimension start="2"/></Float64>
  </ModelVariables>
</fmiModelDescription>"#;
        let m = parse(xml).unwrap();
        assert_eq!(m.version, FmiVersion::V3);
        assert!(m.cs_identifier.is_none() && m.has_model_exchange);
        assert_eq!(m.variable("v").unwrap().unit.as_deref(), Some("m/s"));
        assert_eq!(m.enum_items(m.variable("e").unwrap())[0].value, 3);
        assert!(m.variable("arr").unwrap().is_array);
        let i = m.variable("i").unwrap();
        assert_eq!((i.min, i.max), (Some(1.0), None), "a bound that is not a number bounds nothing");
        assert!(!m.variable("v").unwrap().is_array);
    }

    #[test]
    fn rejects_fmi1_and_suggests_names() {
        let err = parse(r#"<fmiModelDescription fmiVersion="1.0"/>"#).unwrap_err();
        assert!(err.to_string().contains("only FMI 2.0 and 3.0"), "{err}");
        let m = parse(FMI2).unwrap();
        assert_eq!(m.similar_names("X", |_| true), ["x"]);
        assert!(m.similar_names("completely_different", |_| true).is_empty());
        assert_eq!(m.similar_names("m.unknown_member", |_| true), Vec::<&str>::new());
        let grouped = parse(&FMI2.replace("name=\"n\"", "name=\"x.n\"")).unwrap();
        assert_eq!(grouped.similar_names("x.coordinate", |_| true), ["x.n"]);
    }

    #[test]
    fn reads_capabilities_and_output_dependencies() {
        let fmi2 = FMI2
            .replace("<CoSimulation modelIdentifier=\"M_id\"/>", "<CoSimulation modelIdentifier=\"M_id\" canInterpolateInputs=\"true\" maxOutputDerivativeOrder=\"2\"/>")
            .replace("<ModelStructure/>", "<ModelStructure><Outputs><Unknown index=\"3\" dependencies=\"5 2\"/><Unknown index=\"4\"/></Outputs></ModelStructure>");
        let m = parse(&fmi2).unwrap();
        assert_eq!(
            m.capabilities,
            CoSimulationCapabilities {
                can_interpolate_inputs: true,
                max_output_derivative_order: 2,
                provides_intermediate_update: false
            }
        );
        // 1-based indices to positions: x (3) depends on k (5) and m (2); n (4) says nothing.
        assert_eq!(m.output_dependencies[0], OutputDependency { output: 2, dependencies: Some(vec![4, 1]) });
        assert_eq!(m.output_dependencies[1], OutputDependency { output: 3, dependencies: None });
        assert!(parse(&fmi2.replace("dependencies=\"5 2\"", "dependencies=\"9\"")).is_err());
        let fmi3 = r#"<fmiModelDescription fmiVersion="3.0" modelName="M" instantiationToken="t">
  <CoSimulation modelIdentifier="M" providesIntermediateUpdate="true"/>
  <ModelVariables>
    <Float64 name="u" valueReference="7" causality="input" start="0" intermediateUpdate="true"/>
    <Float64 name="y" valueReference="3" causality="output"/>
  </ModelVariables>
  <ModelStructure><Output valueReference="3" dependencies="7"/></ModelStructure>
</fmiModelDescription>"#;
        let m = parse(fmi3).unwrap();
        assert!(m.capabilities.provides_intermediate_update && m.variables[0].intermediate_update);
        assert_eq!(m.output_dependencies, [OutputDependency { output: 1, dependencies: Some(vec![0]) }]);
    }
}
