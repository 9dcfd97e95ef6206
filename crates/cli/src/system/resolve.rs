//! The SSD checked against its FMUs before anything is loaded: components and their
//! modelDescription.xml, connectors (name, kind, type, unit), connections (direction, types,
//! units and their conversion, an input fed twice), parameter values (SSP 1.0 Sect. 5.3.3:
//! later bindings win, a system's over its components'; `--set` over all). Every error names
//! the element and its line.

use super::ssd::{BindingDef, ConnectionDef, ConnectorDef, ConnectorType, Kind, ParameterValue, Ssd, UnitDef};
use crate::error::{Error, Result};
use crate::fmu::{self, Value};
use crate::modeldesc::{Causality, ModelInfo, VarType, Variable};
use std::path::{Path, PathBuf};

pub struct System {
    pub name: String,
    pub components: Vec<Component>,
    pub links: Vec<Link>,
}

pub struct Component {
    pub name: String,
    pub path: PathBuf,
    pub info: ModelInfo,
    /// (variable index, value, where it came from) in the order they are set.
    pub parameters: Vec<(usize, Value, String)>,
    /// Variables of the declared output connectors (the default CSV columns).
    pub outputs: Vec<usize>,
}

impl Component {
    pub fn variable(&self, index: usize) -> &Variable {
        &self.info.variables[index]
    }
}

/// The kinds of values a connection carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Real,
    Integer,
    Boolean,
    Enumeration,
    Other,
}

pub fn class(ty: VarType) -> Class {
    match ty {
        VarType::Float64 | VarType::Float32 => Class::Real,
        VarType::Int8 | VarType::Int16 | VarType::Int32 | VarType::Int64 => Class::Integer,
        VarType::UInt8 | VarType::UInt16 | VarType::UInt32 | VarType::UInt64 => Class::Integer,
        VarType::Boolean => Class::Boolean,
        VarType::Enumeration => Class::Enumeration,
        VarType::String | VarType::Binary | VarType::Clock => Class::Other,
    }
}

/// An output feeding an input: target = factor * source + offset (the connection's linear
/// transformation, then the unit conversion).
#[derive(Clone, Debug)]
pub struct Link {
    /// (component, variable index)
    pub from: (usize, usize),
    pub to: (usize, usize),
    pub class: Class,
    pub factor: f64,
    pub offset: f64,
    pub label: String,
}

/// Checks `ssd` (read from `base`) against its FMUs; `set` are the command line's
/// `<component>.<variable>=<value>` assignments.
pub fn resolve(ssd: &Ssd, base: &Path, set: &[(String, String)]) -> Result<System> {
    let mut components: Vec<Component> = Vec::new();
    for def in &ssd.components {
        let here = format!("component '{}' (line {})", def.name, def.line);
        if components.iter().any(|c| c.name == def.name) {
            return Err(Error::msg(format!("{here}: the name is used twice in system '{}'", ssd.name)));
        }
        if def.source.contains("://") || Path::new(&def.source).is_absolute() {
            return Err(Error::msg(format!(
                "{here}: source \"{}\" is not a relative path (SSP 1.0 Sect. 5.4: components in an SSP are referenced relative to the SSD)",
                def.source
            )));
        }
        let path = base.join(&def.source);
        if !path.is_file() {
            return Err(Error::msg(format!("{here}: its FMU {} is not in the system (no such file)", def.source)));
        }
        let info = fmu::peek(&path).map_err(|e| e.context(&here))?;
        if info.cs_identifier.is_none() {
            return Err(Error::msg(format!("{here}: {} is not a co-simulation FMU", def.source)));
        }
        let mut outputs = Vec::new();
        for connector in &def.connectors {
            let index = check_connector(&info, connector).map_err(|e| e.context(format!("{here}, {}", def.source)))?;
            if connector.kind == Kind::Output {
                outputs.push(index);
            }
        }
        components.push(Component { name: def.name.clone(), path, info, parameters: Vec::new(), outputs });
    }
    let links = ssd
        .connections
        .iter()
        .map(|c| link(ssd, &components, c).map_err(|e| e.context(c.label())))
        .collect::<Result<Vec<_>>>()?;
    for (i, a) in links.iter().enumerate() {
        if let Some(b) = links[..i].iter().find(|b| b.to == a.to) {
            let (c, v) = a.to;
            return Err(Error::msg(format!(
                "input {}.{} is connected twice: by {} and by {}",
                components[c].name,
                components[c].variable(v).name,
                b.label,
                a.label
            )));
        }
    }
    // Parameter values: components' bindings, then the system's, then --set.
    for (k, def) in ssd.components.iter().enumerate() {
        for binding in &def.bindings {
            apply_binding(&mut components, binding, Some(k))?;
        }
    }
    for binding in &ssd.bindings {
        apply_binding(&mut components, binding, None)?;
    }
    for (name, text) in set {
        let (k, variable) = split_name(&components, name).ok_or_else(|| {
            let names: Vec<&str> = components.iter().map(|c| c.name.as_str()).collect();
            Error::msg(format!(
                "--set {name}={text}: name a component's variable as <component>.<variable>; components: {}",
                names.join(", ")
            ))
        })?;
        let info = &components[k].info;
        let index = info.variables.iter().position(|v| v.name == variable).ok_or_else(|| {
            crate::simulate::unknown_variable(info, variable, "--set", |v| v.settable().is_ok())
                .context(format!("component '{}'", components[k].name))
        })?;
        let var = &info.variables[index];
        var.settable().map_err(|why| Error::msg(format!("--set {name}: cannot set it before the run: {why}")))?;
        let value = crate::simulate::parse_value(info, var, text, "--set")?;
        components[k].parameters.push((index, value, "--set".into()));
    }
    Ok(System { name: ssd.name.clone(), components, links })
}

/// `<component>.<variable>`: the longest component name followed by a dot (names may contain dots).
pub fn split_name<'a>(components: &[Component], name: &'a str) -> Option<(usize, &'a str)> {
    components
        .iter()
        .enumerate()
        .filter_map(|(k, c)| Some((k, name.strip_prefix(c.name.as_str())?.strip_prefix('.')?)))
        .max_by_key(|(k, _)| components[*k].name.len())
}

/// The variable a connector names, checked for kind, type and unit.
fn check_connector(info: &ModelInfo, connector: &ConnectorDef) -> Result<usize> {
    let here = format!("connector '{}' (line {})", connector.name, connector.line);
    let index = info.variables.iter().position(|v| v.name == connector.name).ok_or_else(|| {
        let similar = info.similar_names(&connector.name, |_| true);
        let hint =
            if similar.is_empty() { String::new() } else { format!(" (did you mean {}?)", similar.join(" or ")) };
        Error::msg(format!("{here}: {} has no variable of that name{hint}", info.model_name))
    })?;
    let var = &info.variables[index];
    let kind = match var.causality {
        Causality::Input => Kind::Input,
        Causality::Output => Kind::Output,
        Causality::Parameter | Causality::StructuralParameter => Kind::Parameter,
        Causality::CalculatedParameter => Kind::CalculatedParameter,
        Causality::Local | Causality::Independent => {
            return Err(Error::msg(format!("{here}: the FMU's variable is not an input, output or parameter")))
        }
    };
    if kind != connector.kind {
        return Err(Error::msg(format!(
            "{here}: kind=\"{}\" but the FMU's variable is an {} (SSP 1.0 Sect. 5.3.1: the kind must match the causality)",
            connector.kind.name(),
            kind.name()
        )));
    }
    if let Some(ty) = &connector.ty {
        let matches = match ty {
            ConnectorType::Real { .. } => class(var.ty) == Class::Real,
            ConnectorType::Integer => class(var.ty) == Class::Integer,
            ConnectorType::Boolean => var.ty == VarType::Boolean,
            ConnectorType::Enumeration => var.ty == VarType::Enumeration,
            ConnectorType::String => var.ty == VarType::String,
            ConnectorType::Binary => var.ty == VarType::Binary,
        };
        if !matches {
            return Err(Error::msg(format!(
                "{here}: declared {} but the FMU's variable is {}",
                ty.name(),
                var.ty.name()
            )));
        }
        if let ConnectorType::Real { unit: Some(unit) } = ty {
            if let Some(own) = var.unit.as_deref().filter(|own| own != unit) {
                return Err(Error::msg(format!(
                    "{here}: declared in unit {unit} but the FMU's variable is in {own} (a connector does not convert)"
                )));
            }
        }
    }
    Ok(index)
}

fn connector_unit<'a>(ssd: &'a Ssd, component: usize, connector: &str, var: &'a Variable) -> Option<&'a str> {
    let declared =
        ssd.components[component].connectors.iter().find(|c| c.name == connector).and_then(|c| match &c.ty {
            Some(ConnectorType::Real { unit }) => unit.as_deref(),
            _ => None,
        });
    declared.or(var.unit.as_deref())
}

fn link(ssd: &Ssd, components: &[Component], c: &ConnectionDef) -> Result<Link> {
    let end = |(element, connector): &(Option<String>, String)| -> Result<(usize, usize, Kind)> {
        let element = element.as_deref().ok_or_else(|| {
            Error::msg(format!(
                "'{connector}' is a connector of the system itself; connections to system inputs and outputs are not supported by mbfmu's master (SSP feature not implemented)"
            ))
        })?;
        let k = components.iter().position(|c| c.name == element).ok_or_else(|| {
            let names: Vec<&str> = components.iter().map(|c| c.name.as_str()).collect();
            Error::msg(format!("no component '{element}' in system '{}' (components: {})", ssd.name, names.join(", ")))
        })?;
        let def = ssd.components[k].connectors.iter().find(|d| d.name == *connector).ok_or_else(|| {
            let names: Vec<&str> = ssd.components[k].connectors.iter().map(|d| d.name.as_str()).collect();
            Error::msg(format!(
                "component '{element}' has no connector '{connector}' (SSP 1.0 Sect. 5.3.1: connected variables must be declared as connectors; declared: {})",
                if names.is_empty() { "none".into() } else { names.join(", ") }
            ))
        })?;
        let index = components[k].info.variables.iter().position(|v| v.name == *connector).expect("checked connector");
        Ok((k, index, def.kind))
    };
    let (a, b) = (end(&c.start)?, end(&c.end)?);
    let is_source = |kind: Kind| matches!(kind, Kind::Output | Kind::CalculatedParameter);
    let ((fk, fv, fkind), (tk, tv, tkind)) = if is_source(a.2) { (a, b) } else { (b, a) };
    if !is_source(fkind) || is_source(tkind) {
        return Err(Error::msg(format!(
            "it joins a connector of kind {} to one of kind {}; data must flow from an output to an input",
            a.2.name(),
            b.2.name()
        )));
    }
    if fkind != Kind::Output || tkind != Kind::Input {
        return Err(Error::msg(format!(
            "a connection from a {} to a {} (parameter data flow at initialization) is not supported by mbfmu's master (SSP feature not implemented)",
            fkind.name(),
            tkind.name()
        )));
    }
    let (from, to) = (components[fk].variable(fv), components[tk].variable(tv));
    let (fc, tc) = (class(from.ty), class(to.ty));
    if fc != tc {
        return Err(Error::msg(format!(
            "incompatible types: {}.{} is {}, {}.{} is {}",
            components[fk].name,
            from.name,
            from.ty.name(),
            components[tk].name,
            to.name,
            to.ty.name()
        )));
    }
    if fc == Class::Other {
        return Err(Error::msg(format!(
            "a connection of {} variables is not supported by mbfmu's master (SSP feature not implemented)",
            from.ty.name()
        )));
    }
    let (mut factor, mut offset) = c.linear.unwrap_or((1.0, 0.0));
    if c.linear.is_some() && fc != Class::Real {
        return Err(Error::msg("a linear transformation applies to Real connections only (SSP 1.0 Sect. 4.5.2)"));
    }
    if fc == Class::Real && !c.suppress_unit_conversion {
        let (fu, tu) = (connector_unit(ssd, fk, &from.name, from), connector_unit(ssd, tk, &to.name, to));
        if let (Some(fu), Some(tu)) = (fu, tu) {
            if fu != tu {
                let (f, o) = conversion(&ssd.units, fu, tu)?;
                (factor, offset) = (f * factor, f * offset + o);
            }
        }
    }
    let label =
        format!("{}.{} -> {}.{} (line {})", components[fk].name, from.name, components[tk].name, to.name, c.line);
    Ok(Link { from: (fk, fv), to: (tk, tv), class: fc, factor, offset, label })
}

/// (factor, offset) taking a value in `from` to `to` through SI (SSP 1.0 Sect. 4.4: SI value =
/// factor * value + offset).
fn conversion(units: &[UnitDef], from: &str, to: &str) -> Result<(f64, f64)> {
    let find = |name: &str| {
        units.iter().find(|u| u.name == name).ok_or_else(|| {
            Error::msg(format!(
                "unit mismatch: {from} to {to}, and the SSD declares no <ssc:Unit name=\"{name}\"> to convert with"
            ))
        })
    };
    let (a, b) = (find(from)?, find(to)?);
    if a.exponents != b.exponents {
        return Err(Error::msg(format!("unit mismatch: {from} cannot be converted to {to} (different base units)")));
    }
    Ok((a.factor / b.factor, (a.offset - b.offset) / b.factor))
}

/// Applies a parameter set to one component (`Some(k)`, plain names) or to the system
/// (hierarchical `<component>.<variable>` names).
fn apply_binding(components: &mut [Component], binding: &BindingDef, owner: Option<usize>) -> Result<()> {
    for p in &binding.parameters {
        let full = format!("{}{}", binding.prefix, p.name);
        let here = || format!("parameter '{}' ({} line {})", p.name, binding.origin, p.line);
        let target = match owner {
            Some(k) => Some((k, full.as_str())),
            None => split_name(components, &full),
        };
        let found =
            target.and_then(|(k, name)| Some((k, components[k].info.variables.iter().position(|v| v.name == name)?)));
        let Some((k, index)) = found else {
            // SSP 1.0 Sect. 5.3.3: a value that matches no variable is ignored.
            let owner = owner.map_or("the system".to_string(), |k| format!("component '{}'", components[k].name));
            crate::log::print_line(&format!("note: {} matches no variable of {owner}; ignored", here()));
            continue;
        };
        let info = &components[k].info;
        let var = &info.variables[index];
        var.settable()
            .map_err(|why| Error::msg(format!("{}: cannot set {}.{}: {why}", here(), components[k].name, var.name)))?;
        let mismatch =
            |given: &str| Error::msg(format!("{}: a {given} value for {} ({})", here(), var.name, var.ty.name()));
        let value = match (&p.value, class(var.ty)) {
            (ParameterValue::Real(x), Class::Real) => {
                if let (Some(unit), Some(own)) = (&p.unit, &var.unit) {
                    if unit != own {
                        return Err(Error::msg(format!("{}: given in {unit}, but {} is in {own}", here(), var.name)));
                    }
                }
                Value::Real(*x)
            }
            (ParameterValue::Integer(i), Class::Integer | Class::Enumeration) => Value::Int(*i),
            (ParameterValue::Boolean(b), Class::Boolean) => Value::Bool(*b),
            (ParameterValue::String(s), Class::Other) if var.ty == VarType::String => Value::Str(s.clone()),
            (ParameterValue::Enumeration(item), Class::Enumeration) => {
                crate::simulate::parse_value(info, var, item, &here())?
            }
            (ParameterValue::Real(_), _) => return Err(mismatch("Real")),
            (ParameterValue::Integer(_), _) => return Err(mismatch("Integer")),
            (ParameterValue::Boolean(_), _) => return Err(mismatch("Boolean")),
            (ParameterValue::String(_), _) => return Err(mismatch("String")),
            (ParameterValue::Enumeration(_), _) => return Err(mismatch("Enumeration")),
        };
        components[k].parameters.push((index, value, binding.origin.clone()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(name: &str, exponents: [i32; 8], factor: f64, offset: f64) -> UnitDef {
        UnitDef { name: name.into(), exponents, factor, offset }
    }

    #[test]
    fn units_convert_through_si() {
        let length = [0, 1, 0, 0, 0, 0, 0, 0];
        let kelvin = [0, 0, 0, 0, 1, 0, 0, 0];
        let units = [
            unit("m", length, 1.0, 0.0),
            unit("mm", length, 1e-3, 0.0),
            unit("K", kelvin, 1.0, 0.0),
            unit("degC", kelvin, 1.0, 273.15),
            unit("s", [0, 0, 1, 0, 0, 0, 0, 0], 1.0, 0.0),
        ];
        assert_eq!(conversion(&units, "mm", "m").unwrap(), (1e-3, 0.0));
        assert_eq!(conversion(&units, "m", "mm").unwrap(), (1e3, 0.0));
        // 20 degC = 293.15 K.
        let (f, o) = conversion(&units, "degC", "K").unwrap();
        assert_eq!(f * 20.0 + o, 293.15);
        let err = conversion(&units, "m", "s").unwrap_err().to_string();
        assert!(err.contains("different base units"), "{err}");
        let err = conversion(&units, "m", "ft").unwrap_err().to_string();
        assert!(err.contains("declares no <ssc:Unit name=\"ft\">"), "{err}");
    }
}
