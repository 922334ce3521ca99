/* src/core/math/pose_math.h - one joint's quaternion product and rotation
 * written out in scalar floats, for the SoA loops of pose.c and
 * local_to_model.c (the scalar references of their 4-wide forms). */
#ifndef STANCE_POSE_MATH_H
#define STANCE_POSE_MATH_H

/* q = a * b, written out for the SoA loops. */
#define QMUL(ox, oy, oz, ow, ax, ay, az, aw, bx, by, bz, bw) do { \
    float mx_ = aw * bx + ax * bw + ay * bz - az * by;               \
    float my_ = aw * by - ax * bz + ay * bw + az * bx;               \
    float mz_ = aw * bz + ax * by - ay * bx + az * bw;               \
    float mw_ = aw * bw - ax * bx - ay * by - az * bz;               \
    ox = mx_, oy = my_, oz = mz_, ow = mw_; } while (0)

/* v' = q v q*, via t = 2 (u x v); v' = v + w t + u x t. */
#define QROT(ox, oy, oz, qx_, qy_, qz_, qw_, vx, vy, vz) do {   \
    float t1_ = 2.0f * (qy_ * vz - qz_ * vy);                    \
    float t2_ = 2.0f * (qz_ * vx - qx_ * vz);                    \
    float t3_ = 2.0f * (qx_ * vy - qy_ * vx);                    \
    ox = vx + qw_ * t1_ + (qy_ * t3_ - qz_ * t2_);               \
    oy = vy + qw_ * t2_ + (qz_ * t1_ - qx_ * t3_);               \
    oz = vz + qw_ * t3_ + (qx_ * t2_ - qy_ * t1_); } while (0)

#endif
