"""The README's example study: the hydraulic four-bar's maximum piston-side cylinder pressure
over the oil bulk modulus and the directional valve's flow gain, from a sweep's results table.

    mbfmu sweep HydraulicFourBar --grid oil_bulk_modulus=0.5e9:2e9:4 \
        --grid valve_flow_constant=1e-8:4e-8:13 --outputs V2.pressure,V3.pressure -o study.parquet
    python python/examples/hydraulic_study.py study.parquet docs/sweep_hydraulic_study.png

Needs pyarrow and matplotlib (pip install matplotlib).
"""

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402


def main(table_path, figure_path):
    table = pq.read_table(table_path).to_pydict()
    ok = [i for i, status in enumerate(table["status"]) if status == "ok"]
    figure, axes = plt.subplots(1, 2, figsize=(10, 4), sharex=True)
    for modulus in sorted({table["oil_bulk_modulus"][i] for i in ok}):
        rows = sorted((table["valve_flow_constant"][i], i) for i in ok if table["oil_bulk_modulus"][i] == modulus)
        gain = [1e9 * g for g, _ in rows]
        label = f"B = {modulus / 1e9:g} GPa"
        axes[0].plot(gain, [table["V2.pressure:max"][i] / 1e6 for _, i in rows], marker="o", ms=3, label=label)
        axes[1].plot(gain, [table["V3.pressure:max"][i] / 1e6 for _, i in rows], marker="o", ms=3, label=label)
    for ax, side in zip(axes, ("piston side (V2)", "rod side (V3)")):
        ax.set_title(f"maximum pressure, {side}")
        ax.set_xlabel("valve flow constant C_vd [1e-9 m^3/(s V Pa^0.5)]")
        ax.set_ylabel("pressure [MPa]")
        ax.grid(alpha=0.3)
    axes[0].legend(title="oil bulk modulus")
    figure.suptitle(f"HydraulicFourBar, 10 s work cycle: {len(ok)} runs of mbfmu sweep")
    figure.tight_layout()
    figure.savefig(figure_path, dpi=110)


if __name__ == "__main__":
    main(*sys.argv[1:3])
