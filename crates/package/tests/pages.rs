//! What the documentation pages of the FMUs say about the world outside the archive: no
//! internal names (paper keys, issue numbers, the project's notes or source files), links only
//! to the references' DOIs and to anchors on the page, and a bibliography holding every work
//! the page cites.

use crate::internal_names;

use mbfmu_model::catalog::CATALOG;
use mbfmu_model::variables::FmiVersion;
use mbfmu_package::documentation::bibliography;
use mbfmu_package::{FmuContent, Motion};
use regex::Regex;

/// Every page, without a replay and (FMI 3.0) with one.
fn pages() -> Vec<(String, String)> {
    let mut pages = Vec::new();
    for entry in CATALOG {
        for version in [FmiVersion::V2, FmiVersion::V3] {
            pages.push((format!("{} ({version:?})", entry.name), mbfmu_package::documentation_html(entry, version)));
        }
        let motion = Motion::Replay { html: "<!doctype html>".into(), samples: 600 };
        let content = FmuContent::catalog_with(entry, motion);
        pages.push((format!("{} (V3, with its replay)", entry.name), content.documentation3));
    }
    pages
}

#[test]
fn a_replay_sits_beside_its_page_in_a_frame() {
    let entry = mbfmu_model::catalog::find("SliderCrank").unwrap();
    let html = "<!doctype html><title>replay</title>".to_string();
    let content = FmuContent::catalog_with(entry, Motion::Replay { html: html.clone(), samples: 321 });
    let page = &content.documentation3;
    assert!(page.contains("<iframe class=\"replay\" src=\"SliderCrank.replay.html\""), "{page}");
    assert!(page.contains("321 samples"));
    // The archive holds the replay under that name, beside the page.
    let library = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(library.path(), b"not a library").unwrap();
    let binaries = mbfmu_package::Binaries::host(library.path()).unwrap();
    let zip =
        mbfmu_package::write_archive_to(&content, FmiVersion::V3, &binaries, std::io::Cursor::new(Vec::new())).unwrap();
    let mut archive = zip::ZipArchive::new(zip).unwrap();
    let mut stored = String::new();
    std::io::Read::read_to_string(&mut archive.by_name("documentation/SliderCrank.replay.html").unwrap(), &mut stored)
        .unwrap();
    assert_eq!(stored, html);
    // Without a replay the page says why, and the archive holds none.
    let plain = FmuContent::catalog(entry);
    assert!(plain.documentation3.contains("<h2>Motion</h2>") && !plain.documentation3.contains("<iframe"));
}

#[test]
fn pages_name_nothing_internal() {
    let found: Vec<String> = pages().iter().flat_map(|(name, page)| internal_names::find(name, page)).collect();
    assert!(found.is_empty(), "internal names on the documentation pages:\n{}", found.join("\n"));
}

#[test]
fn pages_link_only_to_dois_and_their_own_anchors() {
    let link = Regex::new(r#"(?:href|src)="([^"]*)""#).unwrap();
    for (name, page) in pages() {
        for c in link.captures_iter(&page) {
            let target = &c[1];
            if let Some(anchor) = target.strip_prefix('#') {
                assert!(page.contains(&format!("id=\"{anchor}\"")), "{name}: link to a missing anchor {target}");
            } else if target.ends_with(".replay.html") {
                // The replay the archive holds beside the page, and only on a page that has one.
                let model = name.split(' ').next().unwrap();
                assert_eq!(target, format!("{model}.replay.html"), "{name}");
                assert!(name.ends_with("with its replay)"), "{name}: a replay link without a replay");
            } else {
                assert!(target.starts_with("https://doi.org/10."), "{name}: link to {target}, which is not in the FMU");
            }
        }
    }
}

#[test]
fn every_page_lists_the_works_it_cites_with_authors_title_venue_year() {
    for (name, page) in pages() {
        let references = page
            .split("<h2 id=\"references\">References</h2>")
            .nth(1)
            .unwrap_or_else(|| panic!("{name}: no references"));
        let body = page.split("<h2 id=\"references\">").next().unwrap();
        let mut listed = 0;
        for r in bibliography::ALL {
            let cited = r.marks.iter().any(|m| body.contains(m));
            let entry = references.contains(&format!("<li id=\"{}\">", r.id));
            assert!(!cited || entry, "{name}: cites {} but does not list it", r.short);
            if entry {
                listed += 1;
                let title = r.title.replace('&', "&amp;");
                assert!(references.contains(&title) && references.contains(r.venue), "{name}: {}", r.short);
                if let Some(doi) = r.doi {
                    assert!(references.contains(doi), "{name}: {} without its DOI", r.short);
                }
            }
        }
        assert!(listed >= 1, "{name}: an empty bibliography");
    }
    // The formulations' sources are listed wherever they are used.
    let page = |model: &str| pages().into_iter().find(|(n, _)| n.starts_with(&format!("{model} "))).unwrap().1;
    assert!(page("HydraulicFourBar").contains("id=\"ref-jaiswal2021\""));
    assert!(page("DoublePendulumStateSpace").contains("id=\"ref-negrut\""));
    assert!(
        page("DoublePendulum").contains("id=\"ref-fang2023\"")
            && page("DoublePendulum").contains("id=\"ref-zhang2022\"")
    );
    for beams in ["FlexibleFourBar", "RotatingShaft"] {
        for id in ["ref-bauchau2016", "ref-simo1985", "ref-crisfield1999"] {
            assert!(page(beams).contains(&format!("id=\"{id}\"")), "{beams}: {id}");
        }
    }
}
