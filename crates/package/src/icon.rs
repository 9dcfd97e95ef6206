//! The FMU's icon: the model's drawing (mechanism, else circuit) without labels, rasterized to
//! a PNG by resvg. FMI 2 reads it as `model.png` at the archive root, FMI 3 as
//! `terminalsAndIcons/icon.png`.

use crate::drawing;
use mbfmu_model::format::Description;
use resvg::{tiny_skia, usvg};

/// Side of the square icon \[px\].
pub const SIZE: u32 = 256;

/// The icon's SVG: the mechanism if the model has one, else its hydraulic circuit, else an
/// empty frame.
pub fn svg(d: &Description) -> String {
    let frame = drawing::Frame::ICON;
    if let Some(scene) = drawing::mechanism::Scene::new(d) {
        return scene.svg(&frame, &d.name);
    }
    if let Some(circuit) = drawing::circuit::Circuit::new(d.hydraulics.as_ref()) {
        return circuit.svg(false, Some((frame.width, frame.height)), &d.name);
    }
    drawing::Svg::new(&frame, "empty", &d.name).finish()
}

/// Rasterizes an SVG to a `SIZE` x `SIZE` PNG on white (the drawing is scaled to fit).
pub fn png_of_svg(svg: &str) -> Result<Vec<u8>, String> {
    let tree = usvg::Tree::from_str(svg, &usvg::Options::default()).map_err(|e| format!("icon SVG: {e}"))?;
    let mut pixmap = tiny_skia::Pixmap::new(SIZE, SIZE).ok_or("icon: no pixmap")?;
    pixmap.fill(tiny_skia::Color::WHITE);
    let size = tree.size();
    // Uniform scale that fits the drawing's own size into the square, centred.
    let scale = (SIZE as f32 / size.width()).min(SIZE as f32 / size.height());
    let (dx, dy) = ((SIZE as f32 - size.width() * scale) / 2.0, (SIZE as f32 - size.height() * scale) / 2.0);
    let transform = tiny_skia::Transform::from_row(scale, 0.0, 0.0, scale, dx, dy);
    resvg::render(&tree, transform, &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| format!("icon PNG: {e}"))
}

/// The icon of a model as PNG bytes.
pub fn png(d: &Description) -> Result<Vec<u8>, String> {
    png_of_svg(&svg(d))
}

/// Width, height and RGBA pixels of a PNG (for checking icons), `None` if it does not decode.
pub fn decode_png(bytes: &[u8]) -> Option<(u32, u32, Vec<u8>)> {
    let pixmap = tiny_skia::Pixmap::decode_png(bytes).ok()?;
    Some((pixmap.width(), pixmap.height(), pixmap.data().to_vec()))
}

/// Share of the pixels that are not (nearly) white: some ink means the icon shows a drawing.
pub fn ink_fraction(rgba: &[u8]) -> f64 {
    let pixels = rgba.len() / 4;
    let ink = rgba.chunks_exact(4).filter(|p| p[..3].iter().any(|&c| c < 200)).count();
    if pixels == 0 {
        0.0
    } else {
        ink as f64 / pixels as f64
    }
}
