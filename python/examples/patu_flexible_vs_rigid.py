"""The PATU 655 lift boom, flexible against rigid: both catalog FMUs run with FMPy through
their DefaultExperiment and drawn into one figure (boom angle, chamber pressures, and the
flexible boom's tip deflection normal to the line from the pin through its bent root).

    cargo run --release -- package
    python python/examples/patu_flexible_vs_rigid.py fmus/fmi3 docs/images/PatuLiftBoom-flexible-vs-rigid.png

Needs fmpy, numpy and matplotlib.
"""

import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from fmpy import simulate_fmu  # noqa: E402

# Pin O1 of the boom on the pillar and the tip node's distance from it along the boom [m].
PIN = (-0.090, 1.4261)
TIP = 2.890


def run(path, outputs):
    return simulate_fmu(path, output=outputs, output_interval=1e-3)


def main(folder, png):
    common = ["lift_pin.angle", "V1.pressure", "V2.pressure"]
    tip = ["boom10.node1.position.x", "boom10.node1.position.y"]
    rigid = run(f"{folder}/PatuLiftBoom.fmu", common)
    flexible = run(f"{folder}/PatuLiftBoomFlexible.fmu", common + tip)
    theta = flexible["lift_pin.angle"]
    # The tip of a straight boom turned with the pin node, and the bent tip's offset from it.
    straight = (PIN[0] + TIP * np.cos(theta), PIN[1] + TIP * np.sin(theta))
    deflection = (flexible[tip[0]] - straight[0]) * -np.sin(theta) + (flexible[tip[1]] - straight[1]) * np.cos(theta)

    fig, axes = plt.subplots(3, 1, figsize=(8, 8.5), sharex=True)
    axes[0].plot(rigid["time"], np.degrees(rigid["lift_pin.angle"]), "k-", lw=1.2, label="rigid boom")
    axes[0].plot(flexible["time"], np.degrees(theta), "C1--", lw=1.2, label="flexible boom (beams)")
    axes[0].set_ylabel("boom angle [deg]")
    axes[0].legend(loc="upper right")
    for name, colour in (("V1.pressure", "C0"), ("V2.pressure", "C3")):
        side = "p1 (piston side)" if name == "V1.pressure" else "p2 (rod side)"
        axes[1].plot(rigid["time"], rigid[name] * 1e-6, "-", color=colour, lw=1.0, label=f"{side}, rigid")
        axes[1].plot(flexible["time"], flexible[name] * 1e-6, "--", color="k", lw=0.7, label="flexible" if colour == "C3" else None)
    axes[1].set_ylabel("pressure [MPa]")
    axes[1].legend(loc="upper left", fontsize="small")
    axes[2].plot(flexible["time"], deflection * 1e3, "C1-", lw=0.8)
    axes[2].set_ylabel("tip deflection [mm]")
    axes[2].set_xlabel("time [s]")
    fig.suptitle("PATU 655 lift boom: flexible against rigid (valve +10 V at 2 s, 0 at 9 s, -10 V at 13.5 s, 0 at 21 s)", fontsize="medium")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    # Away from the valve's switching transients: the times of the authors' reference table.
    rows = [int(round(t / 1e-3)) for t in (1.99, 2.5, 5.0, 8.99, 11.0, 14.0, 17.0, 20.9, 23.9)]
    worst = max(np.max(np.abs(flexible[n][rows] / rigid[n][rows] - 1.0)) for n in ("V1.pressure", "V2.pressure"))
    print(
        f"wrote {png}; pressures within {100 * worst:.2f} % of the rigid boom's at the reference times; "
        f"tip deflection {1e3 * deflection.min():.3f} .. {1e3 * deflection.max():.3f} mm"
    )


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
