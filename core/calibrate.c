/*
 * calibrate.c: fits the model's physical parameters (tp_param) to measured
 * runs of one cluster, so that its later estimates match that cluster (or,
 * with options one_cluster 0, to runs of several clusters that share the
 * fitted parameters: a GPU generation's, tests/validation/loso.py).
 *
 * Two fits, because no parameter acts on both figures: the step-time
 * parameters to the runs' step times, fragmentation to their peak memories.
 * Each is a bounded least-squares fit of the residuals
 *     r_j = log(predicted_j / measured_j),
 * the relative error of run j that neither over- nor under-prediction
 * favours, by projected Levenberg-Marquardt: each parameter scaled to its
 * range (u in [0, 1]), a forward-difference Jacobian (the estimate is
 * cheap, about a microsecond, and has no derivatives of its own), damped
 * normal equations solved by Cholesky over the parameters not pinned to a
 * bound, and each step clipped to the box. Each fit starts every free
 * parameter at the best of a coarse scan of its box (scan_box), so that
 * a parameter whose transfers hide at the runs' value can still move.
 *
 * What the runs determine. A parameter no run exercises (its Jacobian
 * column 0: slow_efficiency when no group crosses nodes) is left at its
 * value. One the runs exercise only together with others (overlap_slowdown
 * and slow_efficiency act as their ratio while every transfer across nodes
 * is hidden) is as good as unexercised: its sensitivity, the visible change
 * a 10% change of it makes once the others refit to make up for it, is
 * about 0. After each fit the least determined parameter below
 * TP_CALIBRATE_DETERMINED goes back to its value and the rest are fitted
 * again, until every fitted parameter is determined and they are fewer than
 * the runs (a fit of three runs to three numbers explains nothing).
 *
 * Leave-one-out: each run predicted by a fit of the same parameters to
 * the other runs, started afresh from the runs' values, so that a
 * parameter only the left-out run informs stays at its value. It also
 * chooses the parameters (keep_what_predicts): while the runs left out
 * come out no better than at the runs' own values, by more than
 * LEFT_OUT_STANDARD_ERRORS standard errors of the mean improvement, the
 * least determined parameter goes back to its value and the rest are
 * fitted again, so that a fit that explains its runs without predicting
 * others (three runs of a cluster the defaults already fit) changes
 * nothing rather than making the model worse.
 *
 * Pure: no globals, no allocation (the workspace, about 40 KB, lives on the
 * stack of tp_calibrate); every prediction is checked finite.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fields.h"
#include "tp_internal.h"

#define K TP_PARAM_COUNT
#define MAX_RUNS TP_CALIBRATE_MAX_RUNS
#define FD_STEP 1e-7            /* forward-difference step, a share of the parameter's range */
#define MU_START 1e-3           /* Levenberg-Marquardt damping, relative to J^T J's diagonal */
#define MU_MAX 1e12             /* no step lowers the error at this damping: a minimum */
#define SENSITIVITY_CHANGE 0.1  /* sensitivity: the effect of a 10% change */
#define EXERCISED 1e-12         /* a Jacobian column below this (per unit of range) is 0 */
#define SCAN_POINTS 8           /* a parameter's box scanned in eighths before the fit */
/* A fit is kept when its runs left out gain more than this many standard
 * errors of their mean gain: at one, three runs whose gains are +3.4,
 * -1.6 and +3.1 points keep a fit that makes the cluster's other runs
 * worse (tests/cli/calibrate_three_noisy.json); two, the usual test of a
 * mean against zero, sets it back, and the generation fits of
 * tests/validation/loso.py predict the sources left out better with it */
#define LEFT_OUT_STANDARD_ERRORS 2.0
#define STALL_WINDOW 20         /* steps over which a fit must improve its runs' RMS error... */
#define STALL_RMS 1e-4          /* ...by this much (0.01% of a step) to go on */
/* Measurements outside these are typing errors, and refusing them keeps
 * every log ratio and every mean of errors finite. */
#define MIN_STEP_S 1e-6
#define MAX_STEP_S 1e9
#define MIN_MEMORY_BYTES 1048576.0          /* 1 MiB */
#define MAX_MEMORY_BYTES (1e6 * TP_GIB)

/* The parameters: config path, field, and the box the fit keeps to (the
 * physical range; tighter than the field's own where that allows values no
 * hardware shows, an efficiency of 0.001). */
static const struct {
    const char *path;
    field_section section;
    const char *key;
    double min, max;
} params[K] = {
    {"system.gpu.matmul_efficiency", SECTION_GPU, "matmul_efficiency", 0.05, 1.0},
    {"system.gpu.attention_efficiency", SECTION_GPU, "attention_efficiency", 0.05, 1.0},
    {"system.gpu.kernel_latency_us", SECTION_GPU, "kernel_latency_us", 0.0, 200.0},
    {"system.network.fast_efficiency", SECTION_NETWORK, "fast_efficiency", 0.05, 1.0},
    {"system.network.slow_efficiency", SECTION_NETWORK, "slow_efficiency", 0.05, 1.0},
    {"system.gpu.overlap_slowdown", SECTION_GPU, "overlap_slowdown", 0.0, 1.0},
    {"system.gpu.nvlink_overlap_slowdown", SECTION_GPU, "nvlink_overlap_slowdown", 0.0, 1.0},
    {"system.step_overhead_s", SECTION_SYSTEM, "step_overhead_s", 0.0, 10.0},
    {"overheads.fragmentation", SECTION_OVERHEADS, "fragmentation", 0.0, 1.0},
};

const char *tp_param_str(tp_param param)
{
    return param >= 0 && param < K ? params[param].path : NULL;
}

void tp_param_bounds(tp_param param, double *min, double *max)
{
    const int k = param >= 0 && param < K ? (int)param : 0;
    *min = params[k].min;
    *max = params[k].max;
}

void tp_calibrate_defaults(tp_calibrate_options *o)
{
    for (int k = 0; k < K; k++)
        o->fit[k] = 1;
    o->max_iterations = TP_CALIBRATE_MAX_ITERATIONS;
    o->leave_one_out = 1;
    o->one_cluster = 1;
    o->prior_weight = TP_CALIBRATE_PRIOR_WEIGHT;
    o->robust_scale = TP_CALIBRATE_ROBUST_SCALE;
}

/* One least-squares problem: the step times (memory 0) or the peak
 * memories of the runs that measured them, less the one left out. */
typedef struct {
    const tp_calibration_run *runs;
    int n;
    int memory;
    int skip;                  /* the run left out, or -1 */
    const field *fields[K];
    double start[K];           /* the runs' own values */
    int uses[MAX_RUNS];        /* the run measured this problem's figure */
    double target[MAX_RUNS];   /* log of the measured figure */
    double prior;              /* options.prior_weight */
    double robust;             /* options.robust_scale */
} problem;

/* Scratch of one fit: residuals, a trial's residuals, Jacobian columns. */
typedef struct {
    double r[MAX_RUNS + K]; /* the runs', then the prior's */
    double trial[MAX_RUNS + K];
    double columns[K][MAX_RUNS + K];
} workspace;

static double range_of(int k) { return params[k].max - params[k].min; }

/* c with the parameters that differ from the runs' own values set (the
 * others keep the config's exact doubles). */
static void apply(const problem *p, tp_config *c, const double v[K])
{
    for (int k = 0; k < K; k++)
        if (v[k] != p->start[k])
            field_set(p->fields[k], field_section_struct(c, params[k].section), v[k]);
}

/* The peak a measured memory of this kind is compared with: every stage's
 * total less the CUDA context and NCCL's buffers (outside PyTorch's pool),
 * and for allocated memory less the allocator's slack too. */
static double compared_memory(const tp_estimate_result *r, tp_memory_kind kind)
{
    double peak = 0.0;
    for (int i = 0; i < r->stage_count; i++) {
        const tp_stage_memory *s = &r->stages[i];
        double bytes = s->total_bytes - s->other.cuda_context_bytes - s->other.nccl_bytes;
        if (kind == TP_MEMORY_ALLOCATED)
            bytes -= s->other.fragmentation_bytes;
        if (bytes > peak)
            peak = bytes;
    }
    return peak;
}

/* Run j's predicted figure at v, or -1 when the estimate fails or is not
 * a positive finite number. */
static double predict(const problem *p, int j, const double v[K])
{
    tp_config c = p->runs[j].config;
    apply(p, &c, v);
    tp_estimate_result r;
    if (tp_estimate(&c, &r, NULL) != TP_OK)
        return -1.0;
    const double y = p->memory ? compared_memory(&r, p->runs[j].memory_kind) : r.time.step_s;
    return y > 0.0 && isfinite(y) ? y : -1.0;
}

/* Residuals: the runs' and, with a prior, one per parameter. */
static int residual_total(const problem *p) { return p->n + (p->prior > 0.0 ? K : 0); }

/* A log error as the fit counts it: itself, or with a robust scale c the
 * residual whose square is the soft-L1 loss 2 c^2 (sqrt(1 + (e/c)^2) - 1),
 * which is e^2 for small e and grows as |e| for large; written as e times
 * sqrt(2 / (sqrt(1 + (e/c)^2) + 1)) so that a tiny e keeps its digits. */
static double counted_error(double e, double c)
{
    if (c <= 0.0)
        return e;
    const double q = e / c;
    return e * sqrt(2.0 / (sqrt(1.0 + q * q) + 1.0));
}

/* The log ratios at v into r (0 for runs the problem does not use), each
 * as the fit counts it, then with a prior each parameter's move from the
 * runs' value in units of its range, times the prior's weight; 0 when a
 * prediction fails. */
static int residuals(const problem *p, const double v[K], double r[])
{
    for (int j = 0; j < p->n; j++) {
        r[j] = 0.0;
        if (!p->uses[j] || j == p->skip)
            continue;
        const double y = predict(p, j, v);
        if (y < 0.0)
            return 0;
        r[j] = counted_error(log(y) - p->target[j], p->robust);
    }
    for (int k = 0; p->prior > 0.0 && k < K; k++)
        r[p->n + k] = p->prior * (v[k] - p->start[k]) / range_of(k);
    return 1;
}

static double sum_squares(const double r[], int n)
{
    double s = 0.0;
    for (int j = 0; j < n; j++)
        s += r[j] * r[j];
    return s;
}

/* Runs the problem's residuals count (the left-out run aside). */
static int residual_count(const problem *p)
{
    int m = 0;
    for (int j = 0; j < p->n; j++)
        m += p->uses[j] && j != p->skip;
    return m;
}

/* The Jacobian columns of the free parameters at v, per unit of u (a
 * parameter's whole range), by a forward difference that steps back
 * from the upper bound; ws->r must hold the residuals at v. A column
 * whose step fails to predict is 0. */
static void jacobian(const problem *p, workspace *ws, const double v[K], const int free[K])
{
    for (int k = 0; k < K; k++) {
        if (!free[k])
            continue;
        double w[K];
        memcpy(w, v, sizeof w);
        const double h = v[k] + FD_STEP * range_of(k) <= params[k].max ? FD_STEP : -FD_STEP;
        w[k] = v[k] + h * range_of(k);
        const int ok = residuals(p, w, ws->trial);
        for (int j = 0; j < residual_total(p); j++)
            ws->columns[k][j] = ok ? (ws->trial[j] - ws->r[j]) / h : 0.0;
    }
}

/* Parameter k is flat at v when no run's residual moves with it there
 * (ws->columns[k] from jacobian at v): an efficiency high enough that
 * every transfer it paces hides behind compute. */
static int flat(const problem *p, const workspace *ws, int k)
{
    for (int j = 0; j < p->n; j++)
        if (fabs(ws->columns[k][j]) >= EXERCISED)
            return 0;
    return 1;
}

/* The value of parameter k among SCAN_POINTS + 1 spread over its box,
 * the others at v, where the runs fit best (v[k] itself when none fits
 * better, or v cannot be predicted), and in *exercised (unless NULL)
 * whether any of them moves a run's prediction; ws->r ends at v. A fit
 * started on a flat, or on the edge of one, stays there however far the
 * runs are from it: a user whose network is slower than the preset's
 * would keep the preset's efficiency. */
static double scan_box(const problem *p, workspace *ws, const double v[K], int k, int *exercised)
{
    int moved = 0;
    double best = v[k], best_cost = 0.0, u[K];
    if (residuals(p, v, ws->r)) {
        const int m = residual_total(p);
        best_cost = sum_squares(ws->r, m);
        memcpy(u, v, sizeof u);
        for (int i = 0; i <= SCAN_POINTS; i++) {
            u[k] = params[k].min + range_of(k) * (double)i / SCAN_POINTS;
            if (!residuals(p, u, ws->trial))
                continue;
            for (int j = 0; j < p->n; j++)
                moved |= fabs(ws->trial[j] - ws->r[j]) > EXERCISED;
            const double cost = sum_squares(ws->trial, m);
            if (cost < best_cost)
                best_cost = cost, best = u[k];
        }
    }
    if (exercised != NULL)
        *exercised = moved;
    return best;
}

/* J^T J and J^T r of the free parameters from ws's first count residuals'
 * columns; columns multiplied by scale[k] first (NULL: 1). */
static void normal_equations(int count, const workspace *ws, const int free[K], const double *scale,
                             double jtj[K][K], double g[K])
{
    for (int a = 0; a < K; a++) {
        g[a] = 0.0;
        for (int b = 0; b < K; b++)
            jtj[a][b] = 0.0;
    }
    for (int a = 0; a < K; a++) {
        if (!free[a])
            continue;
        const double sa = scale != NULL ? scale[a] : 1.0;
        for (int j = 0; j < count; j++)
            g[a] += sa * ws->columns[a][j] * ws->r[j];
        for (int b = 0; b < K; b++) {
            if (!free[b])
                continue;
            const double sb = scale != NULL ? scale[b] : 1.0;
            for (int j = 0; j < count; j++)
                jtj[a][b] += sa * sb * ws->columns[a][j] * ws->columns[b][j];
        }
    }
}

/* Solves a x = b over the indices of mask by Cholesky (a symmetric); x
 * replaces b there. 0 when a is not positive definite there. */
static int cholesky_solve(double a[K][K], double b[K], const int mask[K])
{
    int idx[K], m = 0;
    for (int k = 0; k < K; k++)
        if (mask[k])
            idx[m++] = k;
    double l[K][K] = {{0.0}};
    for (int i = 0; i < m; i++) {
        for (int j = 0; j <= i; j++) {
            double s = a[idx[i]][idx[j]];
            for (int q = 0; q < j; q++)
                s -= l[i][q] * l[j][q];
            if (i == j) {
                if (!(s > 0.0) || !isfinite(s))
                    return 0;
                l[i][i] = sqrt(s);
            } else {
                l[i][j] = s / l[j][j];
            }
        }
    }
    double y[K];
    for (int i = 0; i < m; i++) {
        double s = b[idx[i]];
        for (int q = 0; q < i; q++)
            s -= l[i][q] * y[q];
        y[i] = s / l[i][i];
    }
    for (int i = m - 1; i >= 0; i--) {
        double s = y[i];
        for (int q = i + 1; q < m; q++)
            s -= l[q][i] * b[idx[q]];
        b[idx[i]] = s / l[i][i];
    }
    return 1;
}

/* The parameters a step may move: free, and not held at a bound by a
 * gradient that pushes out of the box. 0 when there are none. */
static int movable(const double v[K], const int free[K], const double g[K], int move[K])
{
    int count = 0;
    for (int k = 0; k < K; k++) {
        const int held = (v[k] <= params[k].min && g[k] > 0.0) || (v[k] >= params[k].max && g[k] < 0.0);
        move[k] = free[k] && !held;
        count += move[k];
    }
    return count;
}

/* The damped step from v at damping mu, clipped to the box, into w; 0
 * when the damped system cannot be solved. */
static int damped_step(double jtj[K][K], const double g[K], const int move[K], double mu, const double v[K],
                       double w[K])
{
    double a[K][K], d[K], largest = 0.0;
    for (int k = 0; k < K; k++)
        if (move[k] && jtj[k][k] > largest)
            largest = jtj[k][k];
    memcpy(a, jtj, sizeof a);
    for (int k = 0; k < K; k++) {
        /* Marquardt's scaling, with a floor so a flat column stays solvable */
        a[k][k] += mu * (jtj[k][k] + 1e-9 * largest + 1e-300);
        d[k] = -g[k];
    }
    if (!cholesky_solve(a, d, move))
        return 0;
    memcpy(w, v, K * sizeof *w);
    for (int k = 0; k < K; k++) {
        if (!move[k] || !isfinite(d[k]))
            continue;
        const double x = v[k] + d[k] * range_of(k);
        w[k] = x < params[k].min ? params[k].min : x > params[k].max ? params[k].max : x;
    }
    return 1;
}

/* One accepted step or none: tries growing damping until the error falls.
 * Returns 1 with v, ws->r and *cost moved, 0 when no step lowers it. */
static int lm_step(const problem *p, workspace *ws, double v[K], const int move[K], double jtj[K][K],
                   const double g[K], double *mu, double *cost)
{
    for (; *mu <= MU_MAX; *mu *= 4.0) {
        double w[K];
        if (!damped_step(jtj, g, move, *mu, v, w) || !residuals(p, w, ws->trial))
            continue;
        const double trial = sum_squares(ws->trial, residual_total(p));
        if (trial < *cost) {
            memcpy(v, w, K * sizeof *v);
            memcpy(ws->r, ws->trial, sizeof ws->r);
            *cost = trial;
            *mu = *mu / 3.0 > 1e-12 ? *mu / 3.0 : 1e-12;
            return 1;
        }
    }
    return 0;
}

/* The runs' own values, those of the free parameters brought into the box. */
static void start_point(const problem *p, const int free[K], double v[K])
{
    for (int k = 0; k < K; k++)
        v[k] = free[k] ? fmin(fmax(p->start[k], params[k].min), params[k].max) : p->start[k];
}

/* Fits the free parameters of v. Returns 1 when it converged, 0 when it
 * ran out of iterations still improving, -1 when v itself cannot be
 * predicted; *iterations grows by those it took. */
static int fit(const problem *p, workspace *ws, double v[K], const int free[K], int max_iterations, int *iterations)
{
    for (int k = 0; k < K; k++)
        if (free[k])
            v[k] = scan_box(p, ws, v, k, NULL);
    if (!residuals(p, v, ws->r))
        return -1;
    double cost = sum_squares(ws->r, residual_total(p)), mu = MU_START;
    double rms_window[STALL_WINDOW];
    for (int it = 0; it < max_iterations; it++) {
        ++*iterations;
        double jtj[K][K], g[K];
        int move[K];
        jacobian(p, ws, v, free);
        normal_equations(residual_total(p), ws, free, NULL, jtj, g);
        if (cost < 1e-28 || !movable(v, free, g, move))
            return 1;
        const double before = cost;
        double was[K];
        memcpy(was, v, sizeof was);
        if (!lm_step(p, ws, v, move, jtj, g, &mu, &cost))
            return 1; /* no step lowers the error: a minimum within the box */
        double moved = 0.0;
        for (int k = 0; k < K; k++)
            moved = fmax(moved, fabs(v[k] - was[k]) / range_of(k));
        /* stalled: the error falls by under a hundred-millionth, or the
         * parameters move by under a ten-millionth of their box. The
         * estimate is piecewise (overlaps are maxima), so a fit can crawl
         * along a kink for hundreds of steps that change nothing a user
         * would read */
        if (before - cost <= 1e-8 * before || moved < 1e-7)
            return 1;
        /* crawling down a valley: the runs' RMS error has improved by
         * under STALL_RMS over the last STALL_WINDOW steps while the
         * parameters drift along it, which sensitivities() then reads as
         * undetermined */
        const double rms = sqrt(cost / (double)residual_total(p));
        if (it >= STALL_WINDOW && rms_window[it % STALL_WINDOW] - rms < STALL_RMS)
            return 1;
        rms_window[it % STALL_WINDOW] = rms;
    }
    return 0;
}

/* Per free parameter at v: the sensitivity (header of trainplan.h) and
 * the standard error; ws->r must hold the residuals at v. */
static void sensitivities(const problem *p, workspace *ws, const double v[K], const int free[K], double sens[K],
                          double se[K])
{
    double delta[K], scale[K], h[K][K], g[K];
    int count = 0;
    jacobian(p, ws, v, free);
    for (int k = 0; k < K; k++) {
        delta[k] = SENSITIVITY_CHANGE * fmax(fabs(v[k]), 0.01 * range_of(k));
        scale[k] = delta[k] / range_of(k); /* a column per unit of range, to per delta */
        sens[k] = 0.0;
        se[k] = -1.0;
        count += free[k];
    }
    normal_equations(p->n, ws, free, scale, h, g); /* what the runs say, the prior aside */
    double largest = 0.0;
    for (int k = 0; k < K; k++)
        largest = fmax(largest, h[k][k]);
    for (int k = 0; k < K; k++)
        h[k][k] += 1e-12 * largest + 1e-300; /* a ridge: collinear parameters read as 0, not as a failure */
    const int m = residual_count(p);
    const double sigma = m > count ? sqrt(sum_squares(ws->r, p->n) / (double)(m - count)) : -1.0;
    for (int k = 0; k < K; k++) {
        if (!free[k] || m == 0)
            continue;
        double e[K] = {0.0};
        e[k] = 1.0;
        if (!cholesky_solve(h, e, free) || !(e[k] > 0.0))
            continue;
        sens[k] = sqrt(1.0 / (e[k] * (double)m));
        if (sigma >= 0.0 && sens[k] >= TP_CALIBRATE_DETERMINED)
            se[k] = sigma * sqrt(e[k]) * delta[k];
    }
}

/* Clears free[k] for every parameter flat at v and across its box: no
 * run exercises it. */
static void drop_unexercised(const problem *p, workspace *ws, const double v[K], int free[K])
{
    if (!residuals(p, v, ws->r))
        return;
    jacobian(p, ws, v, free);
    for (int k = 0; k < K; k++) {
        int exercised = 1;
        if (free[k] && flat(p, ws, k))
            scan_box(p, ws, v, k, &exercised);
        if (!exercised)
            free[k] = 0;
    }
}

static tp_status not_converged(tp_error *err, int max_iterations, const char *what)
{
    return err_set(err, TP_ERR_INVALID, "fit",
                   "the fit of the %s did not converge in %d iterations: the runs may disagree with the "
                   "model or with each other (compare their errors before the fit)",
                   what, max_iterations);
}

/* Fits the problem's parameters in free, dropping the least determined
 * one and fitting again until all that remain are determined, and at
 * most one fewer than the runs. v ends at the fit, free at the determined
 * set; sens and se per parameter. */
static tp_status fit_determined(const problem *p, workspace *ws, double v[K], int free[K], int max_iterations,
                                double sens[K], double se[K], int *iterations, tp_error *err)
{
    start_point(p, free, v);
    drop_unexercised(p, ws, v, free);
    for (int k = 0; k < K; k++)
        sens[k] = 0.0, se[k] = -1.0;
    for (int pass = 0; pass <= K; pass++) {
        start_point(p, free, v);
        const int status = fit(p, ws, v, free, max_iterations, iterations);
        if (status < 0)
            return err_set(err, TP_ERR_INVALID, "runs", "a run's estimate failed at the starting parameters");
        if (status == 0)
            return not_converged(err, max_iterations, p->memory ? "peak memories" : "step times");
        double s[K], e[K];
        sensitivities(p, ws, v, free, s, e);
        /* at most two parameters fewer than runs (one with two runs or
         * fewer): runs left over to tell a parameter from the runs' noise */
        const int most = residual_count(p) > 2 ? residual_count(p) - 2 : 1;
        int weakest = -1, count = 0;
        for (int k = 0; k < K; k++)
            count += free[k];
        for (int k = 0; k < K; k++) {
            if (!free[k])
                continue;
            sens[k] = s[k];
            se[k] = e[k];
            if ((count > most || s[k] < TP_CALIBRATE_DETERMINED) && (weakest < 0 || s[k] < s[weakest]))
                weakest = k;
        }
        if (weakest < 0)
            return TP_OK;
        free[weakest] = 0;
    }
    memcpy(v, p->start, K * sizeof *v);
    return TP_OK;
}

/* Each run predicted by a fit of free to the other runs (y[j]; -1 where
 * the problem does not use the run or it cannot be predicted), started
 * afresh from the runs' values, so that a parameter only the left-out run
 * informs stays at its value. */
static void left_out_predictions(problem *p, workspace *ws, const int free[K], int max_iterations, double y[])
{
    for (int j = 0; j < p->n; j++) {
        y[j] = -1.0;
        if (!p->uses[j])
            continue;
        double v[K];
        start_point(p, free, v);
        int iterations = 0;
        p->skip = j;
        const int status = fit(p, ws, v, free, max_iterations, &iterations);
        p->skip = -1;
        y[j] = status >= 0 ? predict(p, j, v) : -1.0;
    }
}

/* Whether the predictions y of the runs left out beat the runs' own values
 * by more than the noise of that difference: over the runs that have both,
 * the mean of each run's absolute relative error at its own values less
 * its error left out must exceed LEFT_OUT_STANDARD_ERRORS standard errors
 * of that mean (Welford's running variance; with one run, the difference
 * must be positive). One run predicted far worse than before can then
 * outweigh two predicted a little better, where the mean alone would keep
 * the fit. */
static int left_out_better(const problem *p, const double y[])
{
    static const int none[K] = {0};
    double v[K], mean = 0.0, m2 = 0.0;
    int count = 0;
    start_point(p, none, v);
    for (int j = 0; j < p->n; j++) {
        const double y0 = p->uses[j] ? predict(p, j, v) : -1.0;
        if (y[j] < 0.0 || y0 < 0.0)
            continue;
        const double measured = exp(p->target[j]);
        const double gain = fabs(y0 / measured - 1.0) - fabs(y[j] / measured - 1.0);
        count++;
        const double delta = gain - mean;
        mean += delta / count;
        m2 += delta * (gain - mean);
    }
    if (count == 0)
        return 0;
    const double standard_error = count > 1 ? sqrt(m2 / (count - 1) / count) : 0.0;
    return mean > LEFT_OUT_STANDARD_ERRORS * standard_error;
}

/* The module's header: sets back, weakest first, the parameters of free
 * while the fit predicts the runs left out (y, those of the set it keeps)
 * no better than the runs' own values do (left_out_better; into
 * reverted), then refits the rest into v. */
static void keep_what_predicts(problem *p, workspace *ws, double v[K], int free[K], const double sens[K],
                               int max_iterations, int reverted[K], double y[])
{
    int changed = 0;
    for (;;) {
        left_out_predictions(p, ws, free, max_iterations, y);
        int weakest = -1;
        for (int k = 0; k < K; k++)
            if (free[k] && (weakest < 0 || sens[k] < sens[weakest]))
                weakest = k;
        if (weakest < 0)
            break;
        if (left_out_better(p, y))
            break;
        free[weakest] = 0;
        reverted[weakest] = 1;
        changed = 1;
    }
    if (!changed)
        return;
    int iterations = 0;
    start_point(p, free, v);
    if (fit(p, ws, v, free, max_iterations, &iterations) <= 0)
        start_point(p, free, v);
}

/* ===================== checking the runs ===================== */

/* Whether two sections of the same kind hold the same values (labels aside). */
static int same_section(field_section section, const void *a, const void *b, const char **key)
{
    for (int i = 0; i < field_count; i++) {
        const field *f = &field_table[i];
        if (f->section == section && f->type != FIELD_NAME && field_get(f, a) != field_get(f, b)) {
            *key = f->key;
            return 0;
        }
    }
    return 1;
}

/* Every run on runs[0]'s cluster: its GPU, network, node size, and the
 * values of the parameters the fit shares. Runs of several clusters
 * (options one_cluster 0) share only the values of the fitted parameters:
 * each keeps its own GPU, network and the parameters not fitted. */
static tp_status check_cluster(const tp_calibration_run *runs, int n, const problem *p,
                               const tp_calibrate_options *o, tp_error *err)
{
    const tp_system *first = &runs[0].config.system;
    for (int i = 1; i < n; i++) {
        const tp_system *s = &runs[i].config.system;
        const char *key = "";
        char path[64];
        if (!o->one_cluster) {
            for (int k = 0; k < K; k++) {
                const void *at = field_section_struct_const(&runs[i].config, params[k].section);
                if (o->fit[k] && field_get(p->fields[k], at) != p->start[k]) {
                    snprintf(path, sizeof path, "runs[%d].config.%s", i, params[k].path);
                    return err_set(err, TP_ERR_INVALID, path,
                                   "differs from runs[0]'s; the runs share one value of each fitted parameter");
                }
            }
            continue;
        }
        if (!same_section(SECTION_GPU, &s->gpu, &first->gpu, &key)) {
            snprintf(path, sizeof path, "runs[%d].config.system.gpu", i);
            return err_set(err, TP_ERR_INVALID, path,
                           "differs from runs[0]'s (in %s); a calibration describes one cluster", key);
        }
        if (!same_section(SECTION_NETWORK, &s->network, &first->network, &key)) {
            snprintf(path, sizeof path, "runs[%d].config.system.network", i);
            return err_set(err, TP_ERR_INVALID, path,
                           "differs from runs[0]'s (in %s); a calibration describes one cluster", key);
        }
        for (int k = 0; k < K; k++) {
            const void *at = field_section_struct_const(&runs[i].config, params[k].section);
            if (field_get(p->fields[k], at) != p->start[k]) {
                snprintf(path, sizeof path, "runs[%d].config.%s", i, params[k].path);
                return err_set(err, TP_ERR_INVALID, path,
                               "differs from runs[0]'s; the runs share one set of calibrated parameters");
            }
        }
        if (s->gpus_per_node != first->gpus_per_node) {
            snprintf(path, sizeof path, "runs[%d].config.system.gpus_per_node", i);
            return err_set(err, TP_ERR_INVALID, path, "differs from runs[0]'s; a calibration describes one cluster");
        }
    }
    return TP_OK;
}

static int positive_finite(double x) { return x > 0.0 && isfinite(x); }

/* A step figure's step time through the run's estimate at the runs' own
 * parameters: each figure is a constant over the step time. */
static double step_from(tp_step_figure figure, double value, const tp_config *c, const tp_estimate_result *r)
{
    const double gpus = (double)c->system.gpus;
    switch (figure) {
    case TP_FIGURE_STEP_S: return value;
    case TP_FIGURE_TOKENS_PER_S_PER_GPU:
        return (double)c->training.global_batch * (double)c->training.seq_len / (gpus * value);
    case TP_FIGURE_TFLOPS_PER_GPU: return r->throughput.model_flop_per_step / (gpus * value);
    case TP_FIGURE_MFU:
    default: return r->throughput.model_flop_per_step / (gpus * value * c->system.gpu.tensor_flop_per_s);
    }
}

/* The run's measured step time from whichever figure it gives; 0 when it
 * gives none. */
static tp_status measured_step(const tp_calibration_run *run, int i, const tp_estimate_result *r, double *step_s,
                               tp_error *err)
{
    const double values[] = {[TP_FIGURE_STEP_S] = run->step_s,
                             [TP_FIGURE_TOKENS_PER_S_PER_GPU] = run->tokens_per_s_per_gpu,
                             [TP_FIGURE_TFLOPS_PER_GPU] = run->model_flop_per_s_per_gpu,
                             [TP_FIGURE_MFU] = run->mfu};
    char path[64];
    *step_s = 0.0;
    const char *given = NULL;
    for (int f = 0; f <= TP_FIGURE_MFU; f++) {
        const char *key = tp_step_figure_str((tp_step_figure)f);
        if (values[f] == 0.0)
            continue;
        snprintf(path, sizeof path, "runs[%d].measured.%s", i, key);
        if (!positive_finite(values[f]) || (f == TP_FIGURE_MFU && values[f] > 1.0))
            return err_set(err, TP_ERR_INVALID, path, f == TP_FIGURE_MFU ? "must be above 0 and at most 1"
                                                                         : "must be a positive finite number");
        if (given != NULL)
            return err_set(err, TP_ERR_INVALID, path, "give one step figure, not %s and %s", given, key);
        const double step = step_from((tp_step_figure)f, values[f], &run->config, r);
        if (!(step >= MIN_STEP_S && step <= MAX_STEP_S))
            return err_set(err, TP_ERR_INVALID, path, "gives a step time of %g s, outside %g to %g s", step,
                           MIN_STEP_S, MAX_STEP_S);
        given = key;
        *step_s = step;
    }
    return TP_OK;
}

/* Run i's measurements into the two problems (targets, uses) and its
 * figures before the fit into out. */
static tp_status read_measured(const tp_calibration_run *run, int i, problem *time_p, problem *memory_p,
                               tp_calibration_run_result *out, tp_error *err)
{
    tp_estimate_result r;
    if (tp_estimate(&run->config, &r, err) != TP_OK) { /* it validates the config first */
        char within[32];
        snprintf(within, sizeof within, "runs[%d].config", i);
        return err_locate(err, within);
    }
    double step_s;
    TRY(measured_step(run, i, &r, &step_s, err));
    char path[64];
    snprintf(path, sizeof path, "runs[%d].measured.peak_memory_gib", i);
    if (run->peak_memory_bytes != 0.0
        && !(run->peak_memory_bytes >= MIN_MEMORY_BYTES && run->peak_memory_bytes <= MAX_MEMORY_BYTES))
        return err_set(err, TP_ERR_INVALID, path, "must be 1 MiB to 1000000 GiB");
    if (run->peak_memory_bytes != 0.0 && run->memory_kind != TP_MEMORY_RESERVED
        && run->memory_kind != TP_MEMORY_ALLOCATED) {
        snprintf(path, sizeof path, "runs[%d].measured.memory_kind", i);
        return err_set(err, TP_ERR_INVALID, path, "must be reserved or allocated with a peak memory");
    }
    if (step_s == 0.0 && run->peak_memory_bytes == 0.0) {
        snprintf(path, sizeof path, "runs[%d].measured", i);
        return err_set(err, TP_ERR_INVALID, path,
                       "gives no figure: one of step_s, tokens_per_s_per_gpu, tflops_per_gpu or mfu, "
                       "or peak_memory_gib");
    }
    memset(out, 0, sizeof *out);
    out->has_step = time_p->uses[i] = step_s > 0.0;
    out->has_memory = memory_p->uses[i] = run->peak_memory_bytes > 0.0;
    out->measured_step_s = step_s;
    out->measured_memory_bytes = run->peak_memory_bytes;
    time_p->target[i] = out->has_step ? log(step_s) : 0.0;
    memory_p->target[i] = out->has_memory ? log(run->peak_memory_bytes) : 0.0;
    out->predicted_step_s_before = r.time.step_s;
    out->predicted_memory_bytes_before = compared_memory(&r, run->memory_kind);
    return TP_OK;
}

/* The same config (labels aside) measured more than
 * TP_CALIBRATE_CONTRADICTION apart: no fit can meet both. */
static tp_status check_contradictions(const tp_calibration_run *runs, int n, const tp_calibration_result *out,
                                      tp_error *err)
{
    for (int i = 1; i < n; i++) {
        tp_config a = runs[i].config;
        memset(a.model.name, 0, sizeof a.model.name);
        memset(a.system.gpu.name, 0, sizeof a.system.gpu.name);
        memset(a.system.network.name, 0, sizeof a.system.network.name);
        for (int j = 0; j < i; j++) {
            tp_config b = runs[j].config;
            memcpy(b.model.name, a.model.name, sizeof b.model.name);
            memcpy(b.system.gpu.name, a.system.gpu.name, sizeof b.system.gpu.name);
            memcpy(b.system.network.name, a.system.network.name, sizeof b.system.network.name);
            if (memcmp(&a, &b, sizeof a) != 0)
                continue;
            const tp_calibration_run_result *x = &out->runs[i], *y = &out->runs[j];
            const int step = x->has_step && y->has_step
                          && fmax(x->measured_step_s, y->measured_step_s)
                                 > TP_CALIBRATE_CONTRADICTION * fmin(x->measured_step_s, y->measured_step_s);
            const int memory = x->has_memory && y->has_memory && runs[i].memory_kind == runs[j].memory_kind
                            && fmax(x->measured_memory_bytes, y->measured_memory_bytes)
                                   > TP_CALIBRATE_CONTRADICTION * fmin(x->measured_memory_bytes, y->measured_memory_bytes);
            if (step || memory) {
                char path[64];
                snprintf(path, sizeof path, "runs[%d].measured", i);
                return err_set(err, TP_ERR_INVALID, path,
                               "contradicts runs[%d]: the same config, its %s more than %gx apart", j,
                               step ? "step time" : "peak memory", TP_CALIBRATE_CONTRADICTION);
            }
        }
    }
    return TP_OK;
}

/* ===================== the calibration ===================== */

/* The two problems over the runs, the runs' own parameter values, and
 * every run's measurements and figures before the fit. */
static tp_status prepare(const tp_calibration_run *runs, int n, const tp_calibrate_options *o, problem *time_p,
                         problem *memory_p, tp_calibration_result *out, tp_error *err)
{
    memset(time_p, 0, sizeof *time_p);
    time_p->runs = runs;
    time_p->n = n;
    time_p->skip = -1;
    time_p->prior = o->prior_weight;
    time_p->robust = o->robust_scale;
    for (int k = 0; k < K; k++) {
        int renamed;
        time_p->fields[k] = field_find(params[k].section, params[k].key, &renamed);
        time_p->start[k] = field_get(time_p->fields[k], field_section_struct_const(&runs[0].config, params[k].section));
    }
    *memory_p = *time_p;
    memory_p->memory = 1;
    TRY(check_cluster(runs, n, time_p, o, err));
    for (int i = 0; i < n; i++)
        TRY(read_measured(&runs[i], i, time_p, memory_p, &out->runs[i], err));
    return check_contradictions(runs, n, out, err);
}

static double relative_error(double predicted, double measured) { return predicted / measured - 1.0; }

/* The left-out predictions y into each run's result. */
static void write_left_out(const problem *p, const double y[], tp_calibration_result *out)
{
    for (int j = 0; j < p->n; j++) {
        if (y[j] < 0.0)
            continue;
        tp_calibration_run_result *r = &out->runs[j];
        if (p->memory) {
            r->predicted_memory_bytes_left_out = y[j];
            r->memory_error_left_out = relative_error(y[j], r->measured_memory_bytes);
            r->has_memory_left_out = 1;
        } else {
            r->predicted_step_s_left_out = y[j];
            r->error_left_out = relative_error(y[j], r->measured_step_s);
            r->has_left_out = 1;
        }
    }
}

/* Each run's figures after the fit (v) and the means of the errors. */
static void summarise(const problem *time_p, const problem *memory_p, const double v[K], tp_calibration_result *out)
{
    double sums[6] = {0.0};
    int left_out = 0, memory_left_out = 0;
    for (int j = 0; j < out->run_count; j++) {
        tp_calibration_run_result *r = &out->runs[j];
        if (r->has_step) {
            r->predicted_step_s_after = predict(time_p, j, v);
            r->error_before = relative_error(r->predicted_step_s_before, r->measured_step_s);
            r->error_after = relative_error(r->predicted_step_s_after, r->measured_step_s);
            sums[0] += fabs(r->error_before);
            sums[1] += fabs(r->error_after);
            sums[2] += fabs(r->error_left_out);
            left_out += r->has_left_out;
        }
        if (r->has_memory) {
            r->predicted_memory_bytes_after = predict(memory_p, j, v);
            r->memory_error_before = relative_error(r->predicted_memory_bytes_before, r->measured_memory_bytes);
            r->memory_error_after = relative_error(r->predicted_memory_bytes_after, r->measured_memory_bytes);
            sums[3] += fabs(r->memory_error_before);
            sums[4] += fabs(r->memory_error_after);
            sums[5] += fabs(r->memory_error_left_out);
            memory_left_out += r->has_memory_left_out;
        }
    }
    const double steps = out->step_runs > 0 ? (double)out->step_runs : 1.0;
    const double memories = out->memory_runs > 0 ? (double)out->memory_runs : 1.0;
    out->error_before = sums[0] / steps;
    out->error_after = sums[1] / steps;
    out->has_left_out = out->step_runs >= 2 && left_out == out->step_runs;
    out->error_left_out = out->has_left_out ? sums[2] / steps : 0.0;
    out->memory_error_before = sums[3] / memories;
    out->memory_error_after = sums[4] / memories;
    out->has_memory_left_out = out->memory_runs >= 2 && memory_left_out == out->memory_runs;
    out->memory_error_left_out = out->has_memory_left_out ? sums[5] / memories : 0.0;
}

static tp_status check_options(int n, const tp_calibrate_options *o, tp_error *err)
{
    if (n < 1 || n > MAX_RUNS)
        return err_set(err, TP_ERR_INVALID, "runs", "holds %d runs; a calibration takes 1 to %d", n, MAX_RUNS);
    if (o->max_iterations < 1 || o->max_iterations > 10000)
        return err_set(err, TP_ERR_INVALID, "max_iterations", "must be 1 to 10000, not %d", o->max_iterations);
    return TP_OK;
}

/* The parameters' table of the result, the fitted system and overheads. */
static void write_parameters(const problem *p, const tp_calibration_run *runs, const double v[K], const int fit_k[K],
                             const int determined[K], const double sens[K], const double se[K],
                             tp_calibration_result *out)
{
    tp_config c = runs[0].config;
    apply(p, &c, v);
    out->system = c.system;
    out->overheads = c.overheads;
    for (int k = 0; k < K; k++) {
        tp_calibration_parameter *x = &out->parameters[k];
        x->default_value = field_echo_value(p->fields[k], field_section_struct_const(&runs[0].config, params[k].section));
        x->fitted = determined[k] ? v[k] : x->default_value;
        x->fit = fit_k[k];
        x->determined = determined[k];
        x->sensitivity = sens[k];
        x->standard_error = determined[k] ? se[k] : -1.0;
    }
}

tp_status tp_calibrate(const tp_calibration_run *runs, int n, const tp_calibrate_options *options,
                       tp_calibration_result *out, tp_error *err)
{
    tp_calibrate_options defaults;
    tp_calibrate_defaults(&defaults);
    const tp_calibrate_options *o = options != NULL ? options : &defaults;
    TRY(check_options(n, o, err));
    memset(out, 0, sizeof *out);
    out->run_count = n;
    problem time_p, memory_p;
    TRY(prepare(runs, n, o, &time_p, &memory_p, out, err));
    out->step_runs = residual_count(&time_p);
    out->memory_runs = residual_count(&memory_p);
    int time_free[K], memory_free[K];
    for (int k = 0; k < K; k++) {
        time_free[k] = o->fit[k] && k != TP_PARAM_FRAGMENTATION && out->step_runs > 0;
        memory_free[k] = o->fit[k] && k == TP_PARAM_FRAGMENTATION && out->memory_runs > 0;
    }
    workspace ws;
    double v[K], memory_v[K], sens[K], se[K], memory_sens[K], memory_se[K];
    TRY(fit_determined(&time_p, &ws, v, time_free, o->max_iterations, sens, se, &out->iterations, err));
    TRY(fit_determined(&memory_p, &ws, memory_v, memory_free, o->max_iterations, memory_sens, memory_se,
                       &out->iterations, err));
    int reverted[K] = {0};
    /* leave-one-out: the predictions of the parameters kept */
    double time_y[MAX_RUNS], memory_y[MAX_RUNS];
    const int time_left_out = o->leave_one_out && residual_count(&time_p) >= 2;
    const int memory_left_out = o->leave_one_out && residual_count(&memory_p) >= 2;
    if (time_left_out)
        keep_what_predicts(&time_p, &ws, v, time_free, sens, o->max_iterations, reverted, time_y);
    if (memory_left_out)
        keep_what_predicts(&memory_p, &ws, memory_v, memory_free, memory_sens, o->max_iterations, reverted, memory_y);
    v[TP_PARAM_FRAGMENTATION] = memory_v[TP_PARAM_FRAGMENTATION];
    sens[TP_PARAM_FRAGMENTATION] = memory_sens[TP_PARAM_FRAGMENTATION];
    se[TP_PARAM_FRAGMENTATION] = memory_se[TP_PARAM_FRAGMENTATION];
    if (time_left_out)
        write_left_out(&time_p, time_y, out);
    if (memory_left_out)
        write_left_out(&memory_p, memory_y, out);
    int determined[K], fit_k[K];
    for (int k = 0; k < K; k++) {
        determined[k] = time_free[k] || memory_free[k];
        fit_k[k] = o->fit[k] != 0;
    }
    summarise(&time_p, &memory_p, v, out);
    write_parameters(&time_p, runs, v, fit_k, determined, sens, se, out);
    for (int k = 0; k < K; k++)
        out->parameters[k].reverted = reverted[k];
    return TP_OK;
}
