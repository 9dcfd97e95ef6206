// Pinocchio's articulated-body algorithm with classical RK4 for the work-precision bench
// (crates/cli/benches/work_precision.rs).
//
// usage: pinocchio_rk4 STEPS
//
// The catalog's DoublePendulum [Fang2023] built in code: two revolute joints about x (joint 1 at
// the origin, joint 2 at 4 m along y in bar 1's frame), bar 1's centre of mass 2 m along y,
// bar 2's 1 m along -z, centroidal inertias m (w^2 + L^2)/12 about the transverse axes and
// m w^2/6 about the bar's axis (w = 0.05 m), gravity -9.81 z, released from rest at q = 0.
// The state is the minimal coordinates (q, v); the accelerations are aba(q, v, 0), and
// classical RK4 [HairerNorsettWanner1993, Table 1.2] advances (q, v) with step 8 / STEPS to
// t = 8 s (for revolute joints q + h v is the configuration update). Only the stepping loop is
// timed: a run is repeated until the runs of a block add up to at least 20 ms, and the best of
// 5 blocks (at least 3 runs in all) is printed as "seconds_per_run y z", with the global y and
// z of bar 2's centre of mass at t = 8 s.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/joint-configuration.hpp>
#include <pinocchio/algorithm/kinematics.hpp>
#include <pinocchio/multibody.hpp>

namespace pin = pinocchio;

static pin::Model pendulum() {
  pin::Model model;
  const double w = 0.05;
  const double m1 = 78.0, l1 = 4.0, m2 = 39.0, l2 = 2.0;
  const double t1 = m1 * (w * w + l1 * l1) / 12.0, a1 = m1 * w * w / 6.0;
  const double t2 = m2 * (w * w + l2 * l2) / 12.0, a2 = m2 * w * w / 6.0;
  pin::JointIndex pivot = model.addJoint(0, pin::JointModelRX(), pin::SE3::Identity(), "pivot");
  model.appendBodyToJoint(
      pivot, pin::Inertia(m1, Eigen::Vector3d(0.0, l1 / 2.0, 0.0), Eigen::Vector3d(t1, a1, t1).asDiagonal()));
  pin::SE3 elbow_placement(Eigen::Matrix3d::Identity(), Eigen::Vector3d(0.0, l1, 0.0));
  pin::JointIndex elbow = model.addJoint(pivot, pin::JointModelRX(), elbow_placement, "elbow");
  model.appendBodyToJoint(
      elbow, pin::Inertia(m2, Eigen::Vector3d(0.0, 0.0, -l2 / 2.0), Eigen::Vector3d(t2, t2, a2).asDiagonal()));
  model.gravity.linear(Eigen::Vector3d(0.0, 0.0, -9.81));
  return model;
}

struct Run {
  Eigen::VectorXd q, v;
  double seconds;
};

static Run run(const pin::Model& model, pin::Data& data, long steps) {
  const double h = 8.0 / static_cast<double>(steps);
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.nv);
  Eigen::VectorXd q = pin::neutral(model), v = Eigen::VectorXd::Zero(model.nv);
  Eigen::VectorXd k1q(model.nv), k1v(model.nv), k2q(model.nv), k2v(model.nv), k3q(model.nv), k3v(model.nv),
      k4q(model.nv), k4v(model.nv), qs(model.nq), vs(model.nv);
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < steps; i++) {
    k1q = v;
    k1v = pin::aba(model, data, q, v, tau);
    qs = q + 0.5 * h * k1q;
    vs = v + 0.5 * h * k1v;
    k2q = vs;
    k2v = pin::aba(model, data, qs, vs, tau);
    qs = q + 0.5 * h * k2q;
    vs = v + 0.5 * h * k2v;
    k3q = vs;
    k3v = pin::aba(model, data, qs, vs, tau);
    qs = q + h * k3q;
    vs = v + h * k3v;
    k4q = vs;
    k4v = pin::aba(model, data, qs, vs, tau);
    q += (h / 6.0) * (k1q + 2.0 * k2q + 2.0 * k3q + k4q);
    v += (h / 6.0) * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
  }
  const auto stop = std::chrono::steady_clock::now();
  return Run{q, v, std::chrono::duration<double>(stop - start).count()};
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s STEPS\n", argv[0]);
    return 2;
  }
  const long steps = std::atol(argv[1]);
  if (steps < 1) {
    std::fprintf(stderr, "STEPS must be positive\n");
    return 2;
  }
  const pin::Model model = pendulum();
  pin::Data data(model);
  Run first = run(model, data, steps);
  long per_block = first.seconds > 0.0 ? static_cast<long>(std::ceil(0.02 / first.seconds)) : 1000;
  if (per_block < 1) per_block = 1;
  const int blocks = per_block == 1 ? 3 : 5;
  double best = first.seconds;
  for (int b = 0; b < blocks; b++) {
    double sum = 0.0;
    for (long r = 0; r < per_block; r++) sum += run(model, data, steps).seconds;
    best = std::min(best, sum / static_cast<double>(per_block));
  }
  pin::forwardKinematics(model, data, first.q);
  const Eigen::Vector3d centre = data.oMi[2].act(model.inertias[2].lever());
  std::printf("%.9e %.17e %.17e\n", best, centre.y(), centre.z());
  return 0;
}
