/* MuJoCo's stepping loop for the work-precision bench (crates/cli/benches/work_precision.rs).
 *
 * usage: mujoco_loop MODEL.xml rk4|euler STEPS
 *
 * Loads the model, sets the integrator and the timestep 8 / STEPS, and runs STEPS calls of
 * mj_step from rest (t = 0 to 8 s). Only the loop of mj_step calls is timed: a run is repeated
 * until the runs of a block add up to at least 20 ms, and the best of 5 blocks (at least 3
 * runs in all) is printed, as "seconds_per_run y z" with the global y and z of bar 2's centre
 * of mass at t = 8 s (xipos, after mj_kinematics at the final state). MuJoCo writes its warnings
 * to MUJOCO_LOG.TXT in the working directory. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mujoco/mujoco.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One run from rest: returns the time of the stepping loop alone. */
static double run(const mjModel* m, mjData* d, long steps) {
  mj_resetData(m, d);
  double start = now();
  for (long i = 0; i < steps; i++) {
    mj_step(m, d);
  }
  return now() - start;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s MODEL.xml rk4|euler STEPS\n", argv[0]);
    return 2;
  }
  char error[1000] = "";
  mjModel* m = mj_loadXML(argv[1], NULL, error, sizeof error);
  if (!m) {
    fprintf(stderr, "%s: %s\n", argv[1], error);
    return 1;
  }
  if (strcmp(argv[2], "rk4") == 0) {
    m->opt.integrator = mjINT_RK4;
  } else if (strcmp(argv[2], "euler") == 0) {
    m->opt.integrator = mjINT_EULER;
  } else {
    fprintf(stderr, "unknown integrator %s\n", argv[2]);
    return 2;
  }
  long steps = atol(argv[3]);
  if (steps < 1) {
    fprintf(stderr, "STEPS must be positive\n");
    return 2;
  }
  m->opt.timestep = 8.0 / (double)steps;
  /* An unstable run ends with non-finite values instead of MuJoCo's reset to the initial state. */
  m->opt.disableflags |= mjDSBL_AUTORESET;
  mjData* d = mj_makeData(m);
  int bar2 = mj_name2id(m, mjOBJ_BODY, "bar2");

  /* Runs per block: enough for 20 ms, from one calibration run. */
  double first = run(m, d, steps);
  long per_block = first > 0.0 ? (long)ceil(0.02 / first) : 1000;
  if (per_block < 1) per_block = 1;
  int blocks = per_block == 1 ? 3 : 5;
  double best = first;
  for (int b = 0; b < blocks; b++) {
    double sum = 0.0;
    for (long r = 0; r < per_block; r++) sum += run(m, d, steps);
    if (sum / (double)per_block < best) best = sum / (double)per_block;
  }
  if (fabs(d->time - 8.0) > 1e-9) {
    fprintf(stderr, "ended at t = %.17g, not 8\n", d->time);
    return 1;
  }
  mj_kinematics(m, d);
  printf("%.9e %.17e %.17e\n", best, d->xipos[3 * bar2 + 1], d->xipos[3 * bar2 + 2]);
  mj_deleteData(d);
  mj_deleteModel(m);
  return 0;
}
