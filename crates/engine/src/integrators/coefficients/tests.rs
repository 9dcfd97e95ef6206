use super::*;

/// Order of a tableau by the rooted-tree conditions up to order 5 (Butcher), and the
/// largest stage-order-2 defect |A c - c^2/2| over the internal stages.
fn order_of(t: &Tableau) -> (usize, f64) {
    let n = t.stages() + 1;
    let mut a = vec![vec![0.0; n]; n];
    for (i, row) in t.a.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            a[i + 1][j] = *v;
        }
    }
    let b = a[n - 1].clone();
    let c: Vec<f64> = (0..n).map(|i| a[i].iter().sum()).collect();
    let av = |v: &[f64]| -> Vec<f64> { (0..n).map(|i| (0..n).map(|j| a[i][j] * v[j]).sum()).collect() };
    let dot = |u: &[f64], v: &[f64]| -> f64 { u.iter().zip(v).map(|(x, y)| x * y).sum() };
    let pw = |k: i32| -> Vec<f64> { c.iter().map(|x| x.powi(k)).collect() };
    let mul = |u: &[f64], v: &[f64]| -> Vec<f64> { u.iter().zip(v).map(|(x, y)| x * y).collect() };
    let ac = av(&c);
    let ac2 = av(&pw(2));
    let aac = av(&ac);
    let groups: Vec<Vec<f64>> = vec![
        vec![dot(&b, &pw(0)) - 1.0],
        vec![dot(&b, &c) - 0.5],
        vec![dot(&b, &pw(2)) - 1.0 / 3.0, dot(&b, &ac) - 1.0 / 6.0],
        vec![
            dot(&b, &pw(3)) - 0.25,
            dot(&b, &mul(&c, &ac)) - 1.0 / 8.0,
            dot(&b, &ac2) - 1.0 / 12.0,
            dot(&b, &aac) - 1.0 / 24.0,
        ],
        vec![
            dot(&b, &pw(4)) - 0.2,
            dot(&b, &mul(&pw(2), &ac)) - 0.1,
            dot(&b, &mul(&c, &ac2)) - 1.0 / 15.0,
            dot(&b, &mul(&c, &aac)) - 1.0 / 30.0,
            dot(&b, &mul(&ac, &ac)) - 0.05,
            dot(&b, &av(&pw(3))) - 0.05,
            dot(&b, &av(&mul(&c, &ac))) - 1.0 / 40.0,
            dot(&b, &av(&ac2)) - 1.0 / 60.0,
            dot(&b, &av(&aac)) - 1.0 / 120.0,
        ],
    ];
    // Coefficient sizes up to ~100 (MSSTH4/5) make the conditions cancel at ~1e-12.
    let scale = t.a.iter().flatten().map(|x| x.abs()).fold(1.0, f64::max);
    let order = groups.iter().take_while(|g| g.iter().all(|r| r.abs() < 1e-13 * scale)).count();
    let so2 = (1..n - 1).map(|i| (ac[i] - 0.5 * c[i] * c[i]).abs()).fold(0.0, f64::max);
    (order, so2)
}

/// R(z) at z = -1e12 by the stage recursion: Y_0 = 1, Y_i = (1 + z sum_{j<i} a_ij Y_j)/(1 - z gamma).
fn r_inf(t: &Tableau) -> f64 {
    let z = -1e12;
    let mut y = vec![1.0];
    for row in &t.a {
        let i = row.len() - 1;
        let s: f64 = (0..i).map(|j| row[j] * y[j]).sum();
        y.push((1.0 + z * s) / (1.0 - z * row[i]));
    }
    *y.last().unwrap()
}

#[test]
fn tableaus_have_their_order_and_rho_inf() {
    for k in 0..=10 {
        let rho = k as f64 / 10.0;
        let cases: Vec<(&str, Tableau, usize, f64)> = vec![
            ("Bathe", Tableau::bathe(rho), 2, rho),
            ("MSSTC3", Tableau::msstc(3, rho), 2, -rho),
            ("MSSTC4", Tableau::msstc(4, rho), 2, rho),
            ("MSSTC5", Tableau::msstc(5, rho), 2, -rho),
            ("MSSTH3", Tableau::mssth(3, rho).unwrap(), 3, rho),
            ("MSSTH4", Tableau::mssth(4, rho).unwrap(), 4, rho),
            ("MSSTH5", Tableau::mssth(5, rho).unwrap(), 5, -rho),
        ];
        for (name, t, order, rinf) in cases {
            let (p, so2) = order_of(&t);
            assert_eq!(p, order, "{name} rho {rho}");
            assert!(so2 < 1e-12, "{name} rho {rho}: stage order 2 defect {so2:e}");
            assert!((r_inf(&t) - rinf).abs() < 1e-9, "{name} rho {rho}: R(inf) {} != {rinf}", r_inf(&t));
        }
    }
    for (name, t, order) in [
        ("ESDIRK3(2)4L[2]SA", Tableau::esdirk324l2sa(), 3),
        ("ESDIRK3(2)5L[2]SA", Tableau::esdirk325l2sa(), 3),
        ("ESDIRK4(3)6L[2]SA2", Tableau::esdirk436l2sa2(), 4),
    ] {
        let (p, so2) = order_of(&t);
        assert_eq!(p, order, "{name}");
        assert!(so2 < 1e-12, "{name}: stage order 2 defect {so2:e}");
        assert!(r_inf(&t).abs() < 1e-9, "{name}: L-stable");
    }
}

#[test]
fn gammas_are_the_published_roots() {
    // Exact roots of the gamma equations of [Zhang2022, eq. 7] and [Zhang2020, Tables 2, 4] (25 digits) at rho = 0 and 0.6.
    // A few ulps (MBDyn's MSSTC4 literals are off by up to 2.2e-13).
    let close = |a: f64, b: f64| (a - b).abs() < 1e-16;
    assert!(close(Tableau::bathe(0.0).gamma, 0.292893218813452475599155637895));
    assert!(close(Tableau::bathe(0.6).gamma, 0.263932022500210303590826331269));
    assert!(close(Tableau::msstc(3, 0.0).gamma, 0.1804253064293985641345831));
    assert!(close(Tableau::msstc(3, 0.6).gamma, 0.1712486185906915078076604));
    assert!(close(Tableau::msstc(4, 0.0).gamma, 0.1313787367304661325241454));
    assert!(close(Tableau::msstc(4, 0.6).gamma, 0.1271392659020838138864249));
    assert!(close(Tableau::msstc(5, 0.0).gamma, 0.1035571089202148766377048));
    assert!(close(Tableau::msstc(5, 0.6).gamma, 0.1011961150731811994718270));
    assert!(close(Tableau::mssth_gamma(3, 0.0), 0.4358665215084589994160195));
    assert!(close(Tableau::mssth_gamma(4, 0.6), 0.4541307850365275155891952));
    assert!(close(Tableau::mssth_gamma(5, 0.6), 0.2574960298566752206116149));
    assert!(close(Tableau::mssth_gamma(4, 1.0), (3.0 + 3f64.sqrt()) / 12.0));
}

#[test]
fn esdirk_tables_match_the_published_decimals() {
    let t = Tableau::esdirk324l2sa();
    let want = [
        vec![0.2576482460664272457999960162840797092643, -0.09351476757488624521601546747763655179361],
        vec![
            0.1876410243467238251612921441668043913795,
            -0.5952974735769549480478230275858851737782,
            0.9717899277217721234705114322255239398694,
        ],
    ];
    for (row, w) in t.a[1..].iter().zip(&want) {
        for (x, y) in row.iter().zip(w) {
            assert!((x - y).abs() < 1e-15, "{x} vs {y}");
        }
    }
    let t = Tableau::esdirk325l2sa();
    let b = [
        0.1755455021294052285458922,
        0.1755455021294052285458922,
        -0.3468582000260062242875517,
        0.7707671957671957671957672,
        0.225,
    ];
    for (x, y) in t.a[3].iter().zip(&b) {
        assert!((x - y).abs() < 1e-15);
    }
    assert!((t.c[2] - 0.7681980515339463859803800).abs() < 1e-15);
    let t = Tableau::esdirk436l2sa2();
    let b = [
        -0.002473654250984575794137143,
        -0.002473654250984575794137143,
        0.3581348706213476972836248,
        0.4966739745362784631573008,
        -0.09786153665565700885265130,
        0.248,
    ];
    for (x, y) in t.a[4].iter().zip(&b) {
        assert!((x - y).abs() < 1e-14, "{x} vs {y}");
    }
}

#[test]
fn mssth_tables_match_appendix_a() {
    // The tableaus evaluated from [MBDyn]'s formulas, MSSTH4 and MSSTH5 last rows at rho = 0 (computed there
    // from MBDyn's literal gamma, which differs from the solved root by ~1e-15).
    let t = Tableau::mssth(4, 0.0).unwrap();
    let b4 = [
        0.16539623442088580066,
        -0.15297739848570797732,
        1.12487468949618071,
        -0.71010958791349354664,
        0.57281606248213501331,
    ];
    for (x, y) in t.a[3].iter().zip(&b4) {
        assert!((x - y).abs() < 1e-12, "{x} vs {y}");
    }
    let t = Tableau::mssth(5, 0.0).unwrap();
    let b5 = [
        -0.038861936642984537923,
        0.52551929588283759032,
        0.33299652003971448114,
        -0.045143111937672582296,
        -0.052564608478344881955,
        0.27805384113644993072,
    ];
    for (x, y) in t.a[4].iter().zip(&b5) {
        assert!((x - y).abs() < 1e-11, "{x} vs {y}");
    }
    assert!((t.c[4] - 1.140134263244145573779065).abs() < 1e-12);
    assert!(Tableau::mssth(4, 0.65).is_err());
    assert!(Tableau::mssth(5, 0.05).is_err());
}

#[test]
fn multistep_formulas_are_second_order() {
    // Exact for 1, t, t^2 on the grid t_{n-j} = -j h (variable step for LMS2).
    for rho in [0.0, 0.3, 0.6, 1.0] {
        for (m, times) in [
            (Multistep::lms2(rho, 0.7, 0.7 / 1.3), vec![0.0, -0.7, -2.0]),
            (Multistep::lms2(rho, 1.0, 1.0), vec![0.0, -1.0, -2.0]),
            (Multistep::lms3(rho, 1.0), vec![0.0, -1.0, -2.0, -3.0]),
            (Multistep::lms4(rho, 1.0), vec![0.0, -1.0, -2.0, -3.0, -4.0]),
        ] {
            for p in 0..3 {
                let y = |t: f64| t.powi(p);
                let yp = |t: f64| if p == 0 { 0.0 } else { p as f64 * t.powi(p - 1) };
                let mut rhs = m.b[0] * yp(times[0]);
                for (j, &t) in times.iter().enumerate().skip(1) {
                    rhs += m.a[j - 1] * y(t) + m.b[j] * yp(t);
                }
                assert!((rhs - y(times[0])).abs() < 1e-13, "rho {rho} p {p} steps {}", m.steps);
            }
        }
    }
}

#[test]
fn hermite_predictors_are_exact_for_polynomials() {
    // eq. (12)-(14): exact for cubics; eqs. (16)-(17): exact for quintics.
    for (t1, t2) in [(-1.0, -2.0), (-0.4, -1.5), (0.3, -0.2)] {
        let (tn, h) = (0.5, 0.5 - t1);
        let alpha = h / (t1 - t2);
        let [m0, m1, n0, n1] = hermite3(alpha);
        let y = |t: f64| 1.0 + 2.0 * t - 3.0 * t * t + 0.7 * t * t * t;
        let yp = |t: f64| 2.0 - 6.0 * t + 2.1 * t * t;
        let pred = (m0 * y(t1) + m1 * y(t2)) / h + n0 * yp(t1) + n1 * yp(t2);
        assert!((pred - yp(tn)).abs() < 1e-11, "{pred} vs {}", yp(tn));
    }
    for (t1, t2, t3) in [(-1.0, -2.0, -3.0), (0.74, 0.56, 1.15), (1.047, 0.611, 0.145)] {
        let tn: f64 = 1.0;
        let h = tn - t1;
        let (a1, a2) = (h / (t1 - t2), h / (t2 - t3));
        let (m, n) = hermite5(a1, a2);
        let y = |t: f64| 0.3 - t + 0.5 * t * t + 2.0 * t.powi(3) - 1.5 * t.powi(4) + 0.8 * t.powi(5);
        let yp = |t: f64| -1.0 + t + 6.0 * t * t - 6.0 * t.powi(3) + 4.0 * t.powi(4);
        let pred = (m[0] * y(t1) + m[1] * y(t2) + m[2] * y(t3)) / h + n[0] * yp(t1) + n[1] * yp(t2) + n[2] * yp(t3);
        assert!((pred - yp(tn)).abs() < 1e-9, "{pred} vs {}", yp(tn));
    }
}

#[test]
fn ss_parameters_match_integrators_md() {
    // SS2: gamma1 = (3 - rho)/(2(1 + rho)); SS3: gamma1 = (5-rho)/(4(1+rho)) + i sqrt15 (1-rho)/(12(1+rho)).
    let rho = 0.6;
    let s2 = SingleStep::new(2, rho);
    assert!((s2.gammas[0].0.re - (3.0 - rho) / (2.0 * (1.0 + rho))).abs() < 1e-15);
    let s3 = SingleStep::new(3, rho);
    assert!((s3.gammas[0].0.re - (5.0 - rho) / (4.0 * (1.0 + rho))).abs() < 1e-15);
    assert!((s3.gammas[0].0.im - 15f64.sqrt() * (1.0 - rho) / (12.0 * (1.0 + rho))).abs() < 1e-15);
    let s4 = SingleStep::new(4, rho);
    let kappa1 = 0.342384094858369131699303654002781687;
    assert!((s4.gammas[0].0.re - (1.0 + kappa1 * (1.0 - rho)) / (1.0 + rho)).abs() < 1e-15);
    let k3 = Complex::new(0.0788079525708154341503481729986091564, 0.373930645433610122608971599226572341);
    let g3 = (k3.scale(1.0 - rho) + Complex::ONE).scale(1.0 / (1.0 + rho));
    assert!((s4.gammas[1].0.re - g3.re).abs() < 1e-15 && (s4.gammas[1].0.im - g3.im).abs() < 1e-15);
    // b0 equals LMSk's b0 (spectral equivalence, [Zhang2022, Sect. 2.2]).
    for (k, lms) in
        [(2, Multistep::lms2(rho, 1.0, 1.0)), (3, Multistep::lms3(rho, 1.0)), (4, Multistep::lms4(rho, 1.0))]
    {
        let s = SingleStep::new(k, rho);
        assert!((s.b0_per_h() - lms.b[0]).abs() < 1e-14, "SS{k}: {} vs {}", s.b0_per_h(), lms.b[0]);
        assert!(s.dw[0].im.abs() < 1e-14);
    }
}
