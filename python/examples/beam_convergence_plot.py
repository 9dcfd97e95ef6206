"""The convergence study of the rotating shaft in the style of [Zhang2022, Figs. 25-27]:
relative errors ([Zhang2022, eq. 26]) of the mid-span displacement u3, velocity v3 and
acceleration a3 against dt/n, log-log, one line per method, one panel per quantity. The
errors come from the engine's bench, which writes them with --csv:

    cargo bench -p mbfmu-engine --bench beam_convergence -- --csv shaft.csv
    python python/examples/beam_convergence_plot.py shaft.csv docs/images/RotatingShaft-convergence.png

Needs matplotlib.
"""

import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

QUANTITIES = [("u3", "displacement u3"), ("v3", "velocity v3"), ("a3", "acceleration a3")]


def main(table, png):
    runs = {}
    with open(table, newline="") as f:
        for row in csv.DictReader(f):
            label = row["method"] + (f" ({row['rho_inf']})" if row["rho_inf"] else "")
            runs.setdefault(label, []).append(row)
    fig, axes = plt.subplots(1, 3, figsize=(16, 6), constrained_layout=True)
    markers = "os^vD<>phx*+"
    for k, (label, rows) in enumerate(runs.items()):
        h = [float(r["dt_per_stage"]) for r in rows]
        for ax, (q, _) in zip(axes, QUANTITIES):
            ax.loglog(
                h,
                [float(r[q]) for r in rows],
                marker=markers[k % len(markers)],
                color=plt.cm.tab20(k % 20),
                label=label,
                lw=1.2,
                ms=4,
            )
    for ax, (_, name) in zip(axes, QUANTITIES):
        h = sorted({float(r["dt_per_stage"]) for rows in runs.values() for r in rows})
        lo, hi = h[0], h[-1]
        ref = min(float(r[QUANTITIES[0][0]]) for rows in runs.values() for r in rows)
        for order, style in [(2, ":"), (3, "--"), (4, "-.")]:
            ax.loglog([lo, hi], [ref * 0.5, ref * 0.5 * (hi / lo) ** order], "k" + style, lw=0.8, label=f"order {order}")
        ax.set_title(f"Mid-span {name}")
        ax.set_xlabel("dt/n [s]")
        ax.set_ylabel("relative error (eq. 26)")
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right center", fontsize=8)
    fig.suptitle("RotatingShaft (disk on the mid-span node): convergence as in Zhang et al. 2022, Figs. 25-27")
    fig.savefig(png, dpi=100)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
