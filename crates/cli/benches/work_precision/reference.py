"""Cross-check of the work-precision bench's reference (crates/cli/benches/work_precision.rs).

usage: python reference.py

The catalog's DoublePendulum [Fang2023] as a minimal-coordinate ODE in the absolute bar angles
from the downward vertical, y = (theta1, theta2, theta1', theta2'), Lagrange's equations with
centroidal inertias m (w^2 + L^2)/12 (w = 0.05 m), from theta1 = pi/2 (bar 1 along +y),
theta2 = 0 (bar 2 hanging), at rest; integrated to t = 8 s by SciPy's DOP853
[HairerNorsettWanner1993, Sect. II.10] at rtol 2.5e-14, atol 1e-14. Prints the global y and z
of bar 2's centre of mass at t = 8 s: "y z".
"""

import math

from scipy.integrate import solve_ivp

W = 0.05
M1, M2 = 78.0, 39.0
L1, L2 = 4.0, 2.0
J1 = M1 * (W * W + L1 * L1) / 12.0
J2 = M2 * (W * W + L2 * L2) / 12.0
G = 9.81
C1, C2 = 0.5 * L1, 0.5 * L2


def rhs(_t, y):
    d = y[0] - y[1]
    a11 = M1 * C1 * C1 + J1 + M2 * L1 * L1
    a12 = M2 * L1 * C2 * math.cos(d)
    a22 = M2 * C2 * C2 + J2
    b1 = -M2 * L1 * C2 * math.sin(d) * y[3] * y[3] - (M1 * C1 + M2 * L1) * G * math.sin(y[0])
    b2 = M2 * L1 * C2 * math.sin(d) * y[2] * y[2] - M2 * G * C2 * math.sin(y[1])
    det = a11 * a22 - a12 * a12
    return [y[2], y[3], (a22 * b1 - a12 * b2) / det, (a11 * b2 - a12 * b1) / det]


def main():
    sol = solve_ivp(rhs, (0.0, 8.0), [math.pi / 2.0, 0.0, 0.0, 0.0], method="DOP853", rtol=2.5e-14, atol=1e-14)
    if not sol.success:
        raise SystemExit(sol.message)
    t1, t2 = sol.y[0][-1], sol.y[1][-1]
    print(f"{L1 * math.sin(t1) + C2 * math.sin(t2):.17e} {-L1 * math.cos(t1) - C2 * math.cos(t2):.17e}")


if __name__ == "__main__":
    main()
