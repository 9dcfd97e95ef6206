//! The MSSTH4/MSSTH5 stage abscissae, tabulated at rho_inf in {0, 0.1, ..., 1}
//! (tables of \[MBDyn\], whose criterion is not published), and the conditions that complete the MSSTH5 tableau.

use super::*;

pub fn tabulated_index(rho: f64) -> Option<usize> {
    let k = (rho * 10.0).round();
    ((0.0..=10.0).contains(&k) && (rho - k / 10.0).abs() <= 1e-9).then_some(k as usize)
}

pub(super) fn tabulated_error(name: &str, rho: f64) -> String {
    format!(
        "{name} is defined only for rho_inf in {{0, 0.1, ..., 1}} (its stage abscissae are published as a table at these values only); got {rho}"
    )
}

/// MSSTH4 (c2, c3) at rho_inf = k/10 (\[MBDyn\] table).
pub(super) const MSSTH4_C: [(f64, f64); 11] = [
    (0.5590985754229417305152542, 0.7414011664833654036144139),
    (0.6002938888698324121975147, 0.7584129875780372120885886),
    (0.638522814489160595332861, 0.7731436659604612460228168),
    (0.67524540713318077522649, 0.7860312064122737529814344),
    (0.7116626313535582440037008, 0.7972514819203143643377985),
    (0.7489373901316857945701066, 0.8067140747427041791439706),
    (0.7884370115210036155119526, 0.813966252941913492868764),
    (0.8321495959968309360981758, 0.8179301032006714988753515),
    (0.8836585039419085905336449, 0.8162478946500242305006623),
    (0.9508833135343227253337252, 0.8036295352568830763217989),
    (1.05348034117028673017024, 0.7689305362617052663765094),
];

/// MSSTH5 at rho_inf = k/10: c3 and c4 (\[MBDyn\] table) and starting
/// values of (a32, a42, a43) for the Newton solve (the tableaus evaluated from \[MBDyn\]'s formulas).
#[allow(clippy::type_complexity)]
pub(super) const MSSTH5_C: [(f64, f64, [f64; 3]); 11] = [
    (
        0.9673258605571696255864822,
        1.140134263244145573779065,
        [-13.246792646197920793, 7.7120235540293486852, -0.14405428331622872122],
    ),
    (
        0.9085500184865173967097007,
        1.147028320924987188078603,
        [-12.915667733662427115, 4.5800753987392581528, -0.13676272351092601744],
    ),
    (
        0.8510912674088796370241994,
        1.153119767864889455566413,
        [-12.858397368319562241, 3.0713397404454809447, -0.13538770310591695932],
    ),
    (
        0.7951780419709296721109126,
        1.158468410781347657234619,
        [-13.453355674193984229, 2.154154013706220595, -0.13035681004154166898],
    ),
    (
        0.7409689864721386021173544,
        1.163120553594974015965136,
        [-15.961486892731876011, 1.5332286509963901054, -0.11165661583799983721],
    ),
    (
        0.6885609787040850582329199,
        1.167112017832381054560642,
        [-30.436783250071502018, 1.097113030669325709, -0.059703010669447381756],
    ),
    (
        0.6379972790560722861741283,
        1.170470299562808680349235,
        [24.960783834606311753, 0.79969606054395467288, 0.074286208732510175974],
    ),
    (
        0.5892756783804685705163706,
        1.173216142360941294242593,
        [4.2377568692280058401, 0.62465841306517784389, 0.44623640288116699219],
    ),
    (
        0.5423562209596147765111596,
        1.175364704054515430087235,
        [1.0245504918910441522, 0.57309156253087614171, 1.8799847667434517676],
    ),
    (
        0.4971683414199104533715001,
        1.176926433659807091913763,
        [-0.01655790695158472015, 0.65970448702047147414, -118.28919064142282546],
    ),
    (
        0.4536172576687555468843982,
        1.177907736613444944495654,
        [-0.39420463276444229162, 0.91356062654539825592, -5.0427331674685900021],
    ),
];

/// The MSSTH5 tableau for unknowns x = (a32, a42, a43, c4) and the residuals of the four
/// order-5 conditions that remain once stage order 2 and the quadrature conditions hold.
pub(super) fn mssth5_conditions(g: f64, c3: f64, x: &[f64; 4]) -> (Tableau, [f64; 4]) {
    let [a32, a42, a43, c4] = *x;
    let (c1, c2) = (2.0 * g, 0.1);
    // Stage order 2: sum_j a_ij = c_i and sum_j a_ij c_j = c_i^2 / 2 (c_0 = 0).
    let a21 = (0.5 * c2 * c2 - g * c2) / c1;
    let a31 = (0.5 * c3 * c3 - g * c3 - a32 * c2) / c1;
    let a41 = (0.5 * c4 * c4 - g * c4 - a42 * c2 - a43 * c3) / c1;
    let c = [0.0, c1, c2, c3, c4, 1.0];
    // Quadrature conditions sum_j b_j c_j^k = 1/(k+1), k = 0..4, with b_5 = gamma at c_5 = 1.
    let mut m = [[0.0; 5]; 5];
    let mut rhs = [0.0; 5];
    for k in 0..5 {
        for j in 0..5 {
            m[k][j] = c[j].powi(k as i32);
        }
        rhs[k] = 1.0 / (k as f64 + 1.0) - g;
    }
    let b = solve5(m, rhs).unwrap_or([f64::NAN; 5]);
    let t = Tableau::from_inner(
        g,
        c.to_vec(),
        &[vec![], vec![a21], vec![a31, a32], vec![a41, a42, a43], vec![b[1], b[2], b[3], b[4]]],
        true,
    );
    // Full (s+1) x (s+1) matrix for the conditions.
    let n = 6;
    let mut a = [[0.0; 6]; 6];
    for (i, row) in t.a.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            a[i + 1][j] = *v;
        }
    }
    let bv = a[5];
    let av = |v: &[f64; 6]| -> [f64; 6] { std::array::from_fn(|i| (0..n).map(|j| a[i][j] * v[j]).sum()) };
    let dot = |u: &[f64; 6], v: &[f64; 6]| -> f64 { (0..n).map(|i| u[i] * v[i]).sum() };
    let c2v: [f64; 6] = std::array::from_fn(|i| t.c[i] * t.c[i]);
    let c3v: [f64; 6] = std::array::from_fn(|i| t.c[i] * t.c[i] * t.c[i]);
    let ac2 = av(&c2v);
    let cac2: [f64; 6] = std::array::from_fn(|i| t.c[i] * ac2[i]);
    let f = [
        dot(&bv, &ac2) - 1.0 / 12.0,
        dot(&bv, &cac2) - 1.0 / 15.0,
        dot(&bv, &av(&c3v)) - 1.0 / 20.0,
        dot(&bv, &av(&ac2)) - 1.0 / 60.0,
    ];
    (t, f)
}

pub(super) fn solve4(m: [[f64; 4]; 4], r: [f64; 4]) -> Option<[f64; 4]> {
    solve_small(m, r)
}

pub(super) fn solve5(m: [[f64; 5]; 5], r: [f64; 5]) -> Option<[f64; 5]> {
    solve_small(m, r)
}
