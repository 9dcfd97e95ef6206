//! The documentation pages as a browser shows them: headless Chromium loads the page of
//! several catalog models (planar, spatial, beams, a hydraulic mechanism and a circuit
//! alone), and a script added to a copy of the page (the product pages have none) records
//! each drawn element's bounding box after layout; the dumped DOM must hold one group per
//! body, joint, force element, beam, attached cylinder and hydraulic component, each with
//! a visible extent inside its picture.
//!
//! Needs Debian's `chromium` (`.ci/run` installs it); set CHROMIUM to use another binary.

use mbfmu_model::format::Description;
use mbfmu_model::variables::FmiVersion;
use std::path::PathBuf;
use std::process::Command;

fn chromium() -> PathBuf {
    if let Some(path) = std::env::var_os("CHROMIUM") {
        return PathBuf::from(path);
    }
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if let Ok(out) = Command::new("sh").args(["-c", &format!("command -v {name}")]).output() {
            let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
            if out.status.success() && !path.is_empty() {
                return PathBuf::from(path);
            }
        }
    }
    panic!(
        "headless Chromium is needed to check the documentation pages and was not found: install Debian's \
         `chromium` (apt-get install chromium; .ci/run does) or set CHROMIUM to a Chromium binary"
    );
}

/// Records, for each element group, its class, whether it shows anything (a non-empty box of
/// its shapes) and whether those shapes lie inside the picture's viewBox.
const PROBE: &str = r#"<script>
const found = [];
for (const g of document.querySelectorAll('svg g[id]')) {
  if (g.id === 'lines') continue;
  const vb = g.ownerSVGElement.viewBox.baseVal;
  let box = null;
  for (const shape of g.children) {
    if (shape.tagName === 'text') continue;
    const b = shape.getBBox();
    box = box ? {x0: Math.min(box.x0, b.x), y0: Math.min(box.y0, b.y), x1: Math.max(box.x1, b.x + b.width), y1: Math.max(box.y1, b.y + b.height)}
              : {x0: b.x, y0: b.y, x1: b.x + b.width, y1: b.y + b.height};
  }
  const visible = box !== null && (box.x1 - box.x0 > 0 || box.y1 - box.y0 > 0);
  const inside = box !== null && box.x0 >= -1 && box.y0 >= -1 && box.x1 <= vb.width + 1 && box.y1 <= vb.height + 1;
  found.push([g.getAttribute('class'), g.id, visible, inside]);
}
document.body.setAttribute('data-probe', JSON.stringify(found));
</script>"#;

struct Probe {
    dom: String,
    groups: Vec<(String, String, bool, bool)>,
}

fn load(page: &str) -> Probe {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("index.html");
    std::fs::write(&file, page.replace("</body>", &format!("{PROBE}</body>"))).unwrap();
    let out = Command::new(chromium())
        .args(["--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--dump-dom"])
        .arg(format!("--user-data-dir={}", dir.path().join("profile").display()))
        .arg(format!("file://{}", file.display()))
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run Chromium ({e}): install Debian's `chromium` (.ci/run does) or set CHROMIUM")
        });
    assert!(out.status.success(), "chromium failed: {}", String::from_utf8_lossy(&out.stderr));
    let dom = String::from_utf8(out.stdout).unwrap();
    let start =
        dom.find("data-probe=\"").expect("the probe ran (JavaScript result in the DOM)") + "data-probe=\"".len();
    let end = start + dom[start..].find('"').unwrap();
    let json = dom[start..end].replace("&quot;", "\"").replace("&amp;", "&");
    let raw: Vec<(String, String, bool, bool)> = serde_json::from_str(&json).unwrap();
    Probe { dom, groups: raw }
}

/// (class, count) of every group the description asks for.
fn expected(d: &Description) -> Vec<(&'static str, usize)> {
    let h = d.hydraulics.as_ref();
    let attached = h.iter().flat_map(|h| &h.cylinders).filter(|c| c.attached()).count();
    vec![
        ("body", d.bodies.len()),
        ("joint", d.joints.len()),
        ("force", d.forces.len()),
        ("beam", d.beams.len()),
        ("cylinder", attached),
        ("hydraulic source", h.map_or(0, |h| h.sources.len())),
        ("hydraulic volume", h.map_or(0, |h| h.volumes.len())),
        ("hydraulic valve", h.map_or(0, |h| h.valves.len())),
        ("hydraulic cylinder", h.map_or(0, |h| h.cylinders.len())),
        ("hydraulic feed", h.map_or(0, |h| h.volumes.iter().filter(|v| v.inflow_input.is_some()).count())),
    ]
}

#[test]
#[ignore = "external: chromium (scripts/test-all.sh installs it)"]
fn chromium_shows_one_visible_group_per_element_of_each_drawing() {
    let models = [
        "AndrewsSqueezer",
        "FourLink",
        "FlexibleFourBar",
        "RotatingShaft",
        "HydraulicFourBar",
        "HydraulicFourBarDrive",
        "HydraulicFourBarCylinderMechanism",
        "HydraulicFourBarValveDrive",
    ];
    for name in models {
        let entry = mbfmu_model::catalog::find(name).unwrap();
        let d = mbfmu_model::Model::from_catalog(entry).unwrap().description;
        let page = mbfmu_package::documentation_html(entry, FmiVersion::V3);
        let probe = load(&page);
        assert!(!probe.dom.contains("NaN"), "{name}: NaN in the page");
        let mechanism = !d.bodies.is_empty() || !d.beams.is_empty();
        assert_eq!(
            probe.dom.contains("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"mechanism\""),
            mechanism,
            "{name}"
        );
        assert_eq!(probe.dom.contains("class=\"circuit\""), d.hydraulics.is_some(), "{name}");
        for (class, count) in expected(&d) {
            let seen: Vec<_> = probe.groups.iter().filter(|g| g.0 == class).collect();
            assert_eq!(seen.len(), count, "{name}: groups of class '{class}'");
            for (_, id, visible, inside) in seen {
                assert!(*visible, "{name}: {id} draws nothing");
                assert!(*inside, "{name}: {id} lies outside its picture");
            }
        }
        let total: usize = expected(&d).iter().map(|e| e.1).sum();
        assert_eq!(probe.groups.len(), total, "{name}: no other groups");
        // The circuit's lines: four per directional valve, two per throttle and cylinder, one
        // per inflow.
        if let Some(h) = &d.hydraulics {
            let lines =
                4 * h.valves.iter().filter(|v| matches!(v, mbfmu_model::format::Valve::Directional { .. })).count()
                    + 2 * h.valves.iter().filter(|v| matches!(v, mbfmu_model::format::Valve::Throttle { .. })).count()
                    + 2 * h.cylinders.len()
                    + h.volumes.iter().filter(|v| v.inflow_input.is_some()).count();
            assert_eq!(probe.dom.matches("class=\"line\"").count(), lines, "{name}: hydraulic lines");
        }
    }
}
