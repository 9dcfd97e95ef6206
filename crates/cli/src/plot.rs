//! PNG line plots with plotters' bitmap backend. Text is drawn with an embedded DejaVu Sans
//! through ab_glyph, so no system font library (fontconfig, freetype) is needed.

use crate::error::{Error, Result};
use plotters::prelude::*;
use plotters::style::FontStyle;
use std::path::Path;
use std::sync::Once;

const WIDTH: u32 = 1200;
const PANEL_HEIGHT: u32 = 360;
const TITLE_HEIGHT: u32 = 50;
/// Width of the legend column right of each panel.
const LEGEND_WIDTH: u32 = 260;
/// Distinct colours that stay readable on white (the common "tab10" set).
const COLORS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// One curve: its legend label, unit (panels are made per unit) and values at `times`.
pub struct Series<'a> {
    pub label: String,
    pub unit: Option<&'a str>,
    pub values: Vec<f64>,
}

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are a valid TrueType font shipped by the dejavu crate.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular());
    });
}

fn draw_error<E: std::error::Error + Send + Sync>(path: &Path) -> impl Fn(DrawingAreaErrorKind<E>) -> Error + '_ {
    move |e| Error::msg(format!("cannot draw {}: {e}", path.display()))
}

/// Draws `series` against `times`, one panel per distinct unit, and writes the PNG.
/// Returns the number of panels.
pub fn write_png(path: &Path, title: &str, time_label: &str, times: &[f64], series: &[Series]) -> Result<usize> {
    register_font();
    let mut units: Vec<Option<&str>> = Vec::new();
    for s in series {
        if !units.contains(&s.unit) {
            units.push(s.unit);
        }
    }
    let panels = units.len().max(1);
    let height = TITLE_HEIGHT + PANEL_HEIGHT * panels as u32;
    let err = draw_error(path);
    {
        let root = BitMapBackend::new(path, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(&err)?;
        let root = root.titled(title, ("sans-serif", 26)).map_err(&err)?;
        let (t0, t1) = time_range(times);
        let mut color_index = 0;
        for (panel, unit) in root.split_evenly((panels, 1)).iter().zip(&units) {
            let members: Vec<&Series> = series.iter().filter(|s| s.unit == *unit).collect();
            // The legend gets its own column right of the axes, so it never hides data.
            let (area, legend) = panel.split_horizontally(WIDTH - LEGEND_WIDTH);
            let (y0, y1) = value_range(members.iter().flat_map(|s| s.values.iter().copied()));
            let mut chart = ChartBuilder::on(&area)
                .margin(12)
                .x_label_area_size(45)
                .y_label_area_size(90)
                .build_cartesian_2d(t0..t1, y0..y1)
                .map_err(&err)?;
            chart
                .configure_mesh()
                .x_desc(time_label)
                .y_desc(axis_label(&members, *unit))
                .x_label_formatter(&|v| tick(*v))
                .y_label_formatter(&|v| tick(*v))
                .label_style(("sans-serif", 15))
                .axis_desc_style(("sans-serif", 17))
                .light_line_style(RGBColor(235, 235, 235))
                .draw()
                .map_err(&err)?;
            for (k, s) in members.iter().enumerate() {
                let color = COLORS[color_index % COLORS.len()];
                color_index += 1;
                let style = color.stroke_width(2);
                // Non-finite samples break the line instead of bending it.
                for segment in finite_segments(times, &s.values) {
                    chart.draw_series(LineSeries::new(segment, style)).map_err(&err)?;
                }
                let y = 24 + 24 * k as i32;
                legend.draw(&PathElement::new(vec![(4, y), (30, y)], style)).map_err(&err)?;
                let label = Text::new(s.label.clone(), (36, y - 9), ("sans-serif", 15).into_font());
                legend.draw(&label).map_err(&err)?;
            }
        }
        root.present().map_err(&err)?;
    }
    Ok(panels)
}

/// The y axis names the quantity and its unit: `angle [rad]` from `pivot.angle` and
/// `elbow.angle`; a quantity the curves do not share is named after the unit.
fn axis_label(members: &[&Series], unit: Option<&str>) -> String {
    let quantities: Vec<String> = members.iter().map(|s| quantity(&s.label)).collect();
    let shared = quantities.first().filter(|q| quantities.iter().all(|x| x == *q)).cloned();
    let quantity =
        shared.or_else(|| unit.and_then(unit_quantity).map(str::to_string)).unwrap_or_else(|| "value".into());
    match unit {
        Some(u) if !u.is_empty() => format!("{quantity} [{u}]"),
        _ => quantity,
    }
}

/// `bar1.position.x` -> "position"; `pivot.angle_rate` -> "angle rate"; `total_energy` ->
/// "total energy": the name without its owner and its vector component.
fn quantity(name: &str) -> String {
    let mut parts: Vec<&str> = name.split('.').collect();
    if parts.len() > 1 && matches!(*parts.last().unwrap(), "x" | "y" | "z") {
        parts.pop();
    }
    if parts.len() > 1 {
        parts.remove(0);
    }
    parts.join(" ").replace('_', " ")
}

/// The physical quantity of common units, for panels whose curves differ in name.
fn unit_quantity(unit: &str) -> Option<&'static str> {
    Some(match unit {
        "m" => "position, length",
        "rad" => "angle",
        "m/s" => "velocity",
        "rad/s" => "angular velocity",
        "m/s2" => "acceleration",
        "rad/s2" => "angular acceleration",
        "N" => "force",
        "N.m" => "moment",
        "Pa" => "pressure",
        "m3/s" => "volume flow",
        "m3" => "volume",
        "J" => "energy",
        "W" => "power",
        "kg" => "mass",
        "s" => "time",
        _ => return None,
    })
}

fn time_range(times: &[f64]) -> (f64, f64) {
    match (times.first(), times.last()) {
        (Some(&a), Some(&b)) if b > a => (a, b),
        (Some(&a), _) => (a, a + 1.0),
        _ => (0.0, 1.0),
    }
}

/// Range of the finite values with a 5 % margin; a constant gets a visible band around it.
fn value_range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) =
        values.filter(|v| v.is_finite()).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if lo > hi {
        return (-1.0, 1.0);
    }
    let span = hi - lo;
    if span <= 1e-12 * lo.abs().max(hi.abs()) || span == 0.0 {
        let pad = if lo == 0.0 { 1.0 } else { 0.1 * lo.abs() };
        return (lo - pad, hi + pad);
    }
    (lo - 0.05 * span, hi + 0.05 * span)
}

fn finite_segments(times: &[f64], values: &[f64]) -> Vec<Vec<(f64, f64)>> {
    let mut segments = vec![Vec::new()];
    for (&t, &v) in times.iter().zip(values) {
        if v.is_finite() {
            segments.last_mut().expect("never empty").push((t, v));
        } else if !segments.last().expect("never empty").is_empty() {
            segments.push(Vec::new());
        }
    }
    segments.retain(|s| !s.is_empty());
    segments
}

/// Axis tick text: plain decimals for ordinary magnitudes, exponent form otherwise.
fn tick(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 {
        "0".to_string()
    } else if !(1e-3..1e5).contains(&a) {
        format!("{v:.2e}")
    } else {
        let s = format!("{v:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_split_at_non_finite_values() {
        let t = [0.0, 1.0, 2.0, 3.0, 4.0];
        let v = [1.0, f64::NAN, 2.0, 3.0, f64::INFINITY];
        assert_eq!(finite_segments(&t, &v), vec![vec![(0.0, 1.0)], vec![(2.0, 2.0), (3.0, 3.0)]]);
    }

    #[test]
    fn ranges_are_never_empty() {
        assert_eq!(value_range([0.0, 0.0].into_iter()), (-1.0, 1.0));
        let (lo, hi) = value_range([5.0].into_iter());
        assert!(lo < 5.0 && hi > 5.0);
        assert_eq!(value_range([0.0, 10.0].into_iter()), (-0.5, 10.5));
        assert_eq!(value_range([f64::NAN].into_iter()), (-1.0, 1.0));
    }

    #[test]
    fn axes_name_quantity_and_unit() {
        let s = |label: &str| Series { label: label.into(), unit: None, values: vec![] };
        let (a, b) = (s("pivot.angle"), s("elbow.angle"));
        assert_eq!(axis_label(&[&a, &b], Some("rad")), "angle [rad]");
        let (c, d) = (s("bar1.position.x"), s("bar2.velocity.y"));
        assert_eq!(axis_label(&[&c], Some("m")), "position [m]");
        assert_eq!(axis_label(&[&c, &d], Some("m")), "position, length [m]");
        assert_eq!(axis_label(&[&s("total_energy")], Some("J")), "total energy [J]");
        assert_eq!(axis_label(&[&c, &d], Some("furlong")), "value [furlong]");
    }

    #[test]
    fn ticks_are_short() {
        assert_eq!(tick(0.25), "0.25");
        assert_eq!(tick(2.0), "2");
        assert_eq!(tick(1.5e-7), "1.50e-7");
    }
}
