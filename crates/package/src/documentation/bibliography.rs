//! The works the models, formulations and integrators rely on, as bibliographic data (the
//! project's reference list), and which of them a page cites: those its model's formulation,
//! integrators and elements come from, and any other whose short citation the page's text uses.

use crate::drawing::escape;
use mbfmu_model::format::{Description, Formulation, Method};
use mbfmu_model::variables::ModelInterface;
use std::fmt::Write as _;

pub struct Reference {
    /// Anchor on the page.
    pub id: &'static str,
    /// How the page's text cites it.
    pub short: &'static str,
    /// Strings whose presence in the page's text means the work is cited.
    pub marks: &'static [&'static str],
    pub authors: &'static str,
    pub title: &'static str,
    /// Journal with volume, issue and pages, or the book's publisher, or the institution.
    pub venue: &'static str,
    pub year: Option<&'static str>,
    pub doi: Option<&'static str>,
    /// What is not known about the reference.
    pub note: Option<&'static str>,
}

pub const FANG_2023: Reference = Reference {
    id: "ref-fang2023",
    short: "Fang et al. 2023",
    marks: &["Fang et al."],
    authors: "L. Fang, A. Kissel, R. Zhang, D. Negrut",
    title: "On the use of half-implicit numerical integration in multibody dynamics",
    venue: "Journal of Computational and Nonlinear Dynamics 18(1), 014501",
    year: Some("2023"),
    doi: Some("10.1115/1.4056183"),
    note: None,
};

pub const ZHANG_2022: Reference = Reference {
    id: "ref-zhang2022",
    short: "Zhang et al. 2022",
    marks: &["Zhang et al.", "H. Zhang, R. Zhang"],
    authors: "H. Zhang, R. Zhang, A. Zanoni, P. Masarati",
    title: "Performance of implicit A-stable time integration methods for multibody system dynamics",
    venue: "Multibody System Dynamics 54(3), 263-301",
    year: Some("2022"),
    doi: Some("10.1007/s11044-021-09806-9"),
    note: None,
};

pub const NEGRUT: Reference = Reference {
    id: "ref-negrut",
    short: "Negrut et al.",
    marks: &["Negrut et al.", "Negrut, Haug"],
    authors: "D. Negrut, E. J. Haug, M. Iancu",
    title: "Variable step implicit numerical integration of stiff multibody systems",
    venue: "Department of Mechanical Engineering, The University of Iowa",
    year: None,
    doi: None,
    note: Some("year and venue not verified"),
};

pub const JAISWAL_2021: Reference = Reference {
    id: "ref-jaiswal2021",
    short: "Jaiswal et al. 2021",
    marks: &["Jaiswal"],
    authors: "S. Jaiswal, J. Rahikainen, Q. Khadim, J. Sopanen, A. Mikkola",
    title: "Comparing double-step and penalty-based semirecursive formulations for hydraulically actuated multibody systems in a monolithic approach",
    venue: "Multibody System Dynamics 52, 169-191",
    year: Some("2021"),
    doi: Some("10.1007/s11044-020-09776-4"),
    note: None,
};

pub const RAHIKAINEN_2020: Reference = Reference {
    id: "ref-rahikainen2020",
    short: "Rahikainen et al. 2020",
    marks: &["Rahikainen et al. 2020"],
    authors: "J. Rahikainen, F. Gonzalez, M. A. Naya, J. Sopanen, A. Mikkola",
    title: "On the cosimulation of multibody systems and hydraulic dynamics",
    venue: "Multibody System Dynamics 50(2), 143-167",
    year: Some("2020"),
    doi: Some("10.1007/s11044-020-09727-z"),
    note: None,
};

pub const KHADIM_2023: Reference = Reference {
    id: "ref-khadim2023",
    short: "Khadim et al. 2023",
    marks: &["Khadim et al. 2023"],
    authors: "Q. Khadim et al.",
    title: "Experimental investigation into the state estimation of a forestry crane using the unscented Kalman filter and a multiphysics model",
    venue: "Mechanism and Machine Theory 189, 105405",
    year: Some("2023"),
    doi: None,
    note: Some("the machine's data come from the authors' public code; the paper's text was not read"),
};

pub const BAUCHAU_2016: Reference = Reference {
    id: "ref-bauchau2016",
    short: "Bauchau et al. 2016",
    marks: &["Bauchau"],
    authors: "O. A. Bauchau, P. Betsch, A. Cardona, J. Gerstmayr, B. Jonker, P. Masarati, V. Sonneville",
    title: "Validation of flexible multibody dynamics beam formulations using benchmark problems",
    venue: "Multibody System Dynamics 37, 29-48",
    year: Some("2016"),
    doi: Some("10.1007/s11044-016-9514-y"),
    note: None,
};

pub const KENNEDY_CARPENTER_2019: Reference = Reference {
    id: "ref-kennedy2019",
    short: "Kennedy & Carpenter 2019",
    marks: &["Kennedy"],
    authors: "C. A. Kennedy, M. H. Carpenter",
    title: "Diagonally implicit Runge-Kutta methods for stiff ODEs",
    venue: "Applied Numerical Mathematics 146, 221-244",
    year: Some("2019"),
    doi: Some("10.1016/j.apnum.2019.07.008"),
    note: None,
};

pub const HAIRER_WANNER_1996: Reference = Reference {
    id: "ref-hairer1996",
    short: "Hairer & Wanner 1996",
    marks: &["Hairer"],
    authors: "E. Hairer, G. Wanner",
    title: "Solving Ordinary Differential Equations II: Stiff and Differential-Algebraic Problems, 2nd ed.",
    venue: "Springer",
    year: Some("1996"),
    doi: None,
    note: None,
};

pub const SIMO_1985: Reference = Reference {
    id: "ref-simo1985",
    short: "Simo 1985",
    marks: &["Simo 1985"],
    authors: "J. C. Simo",
    title: "A finite strain beam formulation. The three-dimensional dynamic problem. Part I",
    venue: "Computer Methods in Applied Mechanics and Engineering 49, 55-70",
    year: Some("1985"),
    doi: Some("10.1016/0045-7825(85)90050-7"),
    note: None,
};

pub const SIMO_VU_QUOC_1986: Reference = Reference {
    id: "ref-simo1986",
    short: "Simo & Vu-Quoc 1986",
    marks: &["Vu-Quoc"],
    authors: "J. C. Simo, L. Vu-Quoc",
    title: "A three-dimensional finite-strain rod model. Part II: computational aspects",
    venue: "Computer Methods in Applied Mechanics and Engineering 58, 79-116",
    year: Some("1986"),
    doi: Some("10.1016/0045-7825(86)90079-4"),
    note: None,
};

pub const CRISFIELD_JELENIC_1999: Reference = Reference {
    id: "ref-crisfield1999",
    short: "Crisfield & Jelenic 1999",
    marks: &["Crisfield"],
    authors: "M. A. Crisfield, G. Jelenic",
    title: "Objectivity of strain measures in the geometrically exact three-dimensional beam theory and its finite-element implementation",
    venue: "Proceedings of the Royal Society of London A 455, 1125-1147",
    year: Some("1999"),
    doi: Some("10.1098/rspa.1999.0352"),
    note: None,
};

/// Every work a page may cite, in the order pages list them.
pub const ALL: &[&Reference] = &[
    &FANG_2023,
    &ZHANG_2022,
    &NEGRUT,
    &JAISWAL_2021,
    &RAHIKAINEN_2020,
    &KHADIM_2023,
    &KENNEDY_CARPENTER_2019,
    &HAIRER_WANNER_1996,
    &BAUCHAU_2016,
    &SIMO_1985,
    &SIMO_VU_QUOC_1986,
    &CRISFIELD_JELENIC_1999,
];

/// The works a model's page cites: those of its formulation, integrators and elements, and
/// those `text` (the page so far) names.
pub fn cited(d: &Description, interface: &ModelInterface, text: &str) -> Vec<&'static Reference> {
    let mut uses: Vec<&Reference> = Vec::new();
    match d.solver.formulation {
        // Absolute coordinates with Lie-group rotations, the half-implicit and BDF1 methods.
        Formulation::Index3 => uses.push(&FANG_2023),
        Formulation::StateSpace => uses.push(&NEGRUT),
        Formulation::SemirecursiveDoubleStep | Formulation::SemirecursivePenalty => uses.push(&JAISWAL_2021),
    }
    let offers = |m: &[Method]| interface.methods.iter().any(|x| m.contains(x));
    if offers(Method::ZHANG2022) {
        uses.push(&ZHANG_2022);
    }
    if offers(&[Method::Esdirk324L2Sa, Method::Esdirk325L2Sa, Method::Esdirk436L2Sa2]) {
        uses.push(&KENNEDY_CARPENTER_2019);
    }
    if offers(&[Method::Sdirk4]) {
        uses.push(&HAIRER_WANNER_1996);
    }
    if d.hydraulics.is_some() {
        uses.push(&JAISWAL_2021);
    }
    if !d.beams.is_empty() {
        uses.extend([&BAUCHAU_2016, &SIMO_1985, &SIMO_VU_QUOC_1986, &CRISFIELD_JELENIC_1999]);
    }
    ALL.iter()
        .copied()
        .filter(|r| uses.iter().any(|u| u.id == r.id) || r.marks.iter().any(|m| text.contains(m)))
        .collect()
}

/// The references section of a page.
pub fn section(references: &[&Reference]) -> String {
    let mut out = String::from("<h2 id=\"references\">References</h2>\n<ol class=\"references\">\n");
    for r in references {
        let _ = write!(
            out,
            "<li id=\"{}\">{}, &quot;{}&quot;, {}",
            r.id,
            escape(r.authors),
            escape(r.title),
            escape(r.venue)
        );
        if let Some(year) = r.year {
            let _ = write!(out, ", {year}");
        }
        if let Some(doi) = r.doi {
            let _ = write!(out, ", doi:<a href=\"https://doi.org/{doi}\">{doi}</a>");
        }
        if let Some(note) = r.note {
            let _ = write!(out, " ({note})");
        }
        let _ = writeln!(out, ". Cited as {}.</li>", escape(r.short));
    }
    out.push_str("</ol>\n");
    out
}
