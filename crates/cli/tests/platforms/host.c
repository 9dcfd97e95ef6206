/* A minimal FMI 2.0 / FMI 3.0 co-simulation host, compiled for each platform the archives
 * carry a binary for (natively, with mingw-w64 for wine, with the aarch64 cross gcc for qemu),
 * so that every binary is driven through its C ABI the same way.
 *
 * Reads jobs from the file named by argv[1], one per line:
 *   name version library token resource_uri start stop step every param_vr param_value n vr...
 * where the reals (start, stop, step, param_value) are the 16 hex digits of their IEEE 754
 * bits, as are the printed outputs: no C library's number formatting is involved.
 * and for each one: instantiates, sets the parameter, initializes, steps through
 * [start, stop], prints the outputs every `every` steps and at the end, takes the FMU state
 * three quarters in, serializes it, and after the run deserializes it, restores it and
 * repeats the last quarter, which must give the same outputs to the bit (a quarter rather
 * than a half: the emulated runs are what the cross-platform tests spend most time on). Exit status 0 when every job
 * ran. Only the FMI calls it needs are declared here, as the standards define them. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
static void *open_library(const char *path) { return (void *)LoadLibraryA(path); }
static void *symbol(void *lib, const char *name) { return (void *)GetProcAddress((HMODULE)lib, name); }
static void close_library(void *lib) { FreeLibrary((HMODULE)lib); }
static unsigned long load_error(void) { return GetLastError(); }
#else
#include <dlfcn.h>
static void *open_library(const char *path) { return dlopen(path, RTLD_NOW | RTLD_LOCAL); }
static void *symbol(void *lib, const char *name) { return dlsym(lib, name); }
static void close_library(void *lib) { dlclose(lib); }
static unsigned long load_error(void) { fprintf(stderr, "%s\n", dlerror()); return 0; }
#endif

#define MAX_OUT 512
#define MAX_ROWS 4096

/* FMI 2.0 types. */
typedef void *fmi2Component;
typedef void *fmi2FMUstate;
typedef unsigned int fmi2ValueReference;
typedef int fmi2Boolean;
typedef int fmi2Status;
typedef struct {
    void (*logger)(void *, const char *, fmi2Status, const char *, const char *, ...);
    void *(*allocateMemory)(size_t, size_t);
    void (*freeMemory)(void *);
    void (*stepFinished)(void *, fmi2Status);
    void *componentEnvironment;
} fmi2CallbackFunctions;

/* FMI 3.0 types. */
typedef void *fmi3Instance;
typedef void *fmi3FMUState;
typedef uint32_t fmi3ValueReference;
typedef int fmi3Status;

typedef struct {
    char name[256];
    int version;
    char library[4096];
    char token[256];
    char resources[4096];
    double start, stop, step;
    long every;
    unsigned param_vr;
    double param_value;
    int n;
    unsigned vr[MAX_OUT];
} Job;

static int failed;

static void logger2(void *env, const char *instance, fmi2Status status, const char *category, const char *message, ...) {
    (void)env;
    (void)category;
    if (status >= 2) {
        va_list args;
        va_start(args, message);
        fprintf(stderr, "[%s] status %d: ", instance, status);
        vfprintf(stderr, message, args);
        fprintf(stderr, "\n");
        va_end(args);
    }
}

static void logger3(void *env, fmi3Status status, const char *category, const char *message) {
    (void)env;
    (void)category;
    if (status >= 2) fprintf(stderr, "status %d: %s\n", status, message);
}

#define CHECK(call)                                                                      \
    do {                                                                                 \
        int status_ = (call);                                                            \
        if (status_ > 1) {                                                               \
            fprintf(stderr, "%s: %s returned %d\n", job->name, #call, status_);          \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

#define LOAD(var, function)                                                              \
    do {                                                                                 \
        *(void **)(&var) = symbol(lib, function);                                        \
        if (!var) {                                                                      \
            fprintf(stderr, "%s: %s is not exported\n", job->name, function);            \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

/* The step count and sizes: equal steps, the last one ending at stop exactly. */
static long steps_of(const Job *job) { return (long)ceil((job->stop - job->start) / job->step - 1e-9); }
static double time_at(const Job *job, long i) {
    long n = steps_of(job);
    return i >= n ? job->stop : job->start + (double)i * job->step;
}
static int printed(const Job *job, long i) { return i % job->every == 0 || i == steps_of(job); }

static unsigned long long bits(double x) {
    unsigned long long b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static double real(unsigned long long b) {
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

static void print_row(const char *tag, double t, const double *v, int n) {
    printf("%s %016llx", tag, bits(t));
    for (int k = 0; k < n; k++) printf(" %016llx", bits(v[k]));
    printf("\n");
}

/* Outputs of the first run's last quarter, compared with the repetition from the state. */
static double saved[MAX_ROWS][MAX_OUT];

static int run2(const Job *job, void *lib) {
    fmi2Component (*instantiate)(const char *, int, const char *, const char *, const fmi2CallbackFunctions *,
                                 fmi2Boolean, fmi2Boolean);
    fmi2Status (*setup)(fmi2Component, fmi2Boolean, double, double, fmi2Boolean, double);
    fmi2Status (*enter)(fmi2Component), (*exit_init)(fmi2Component), (*terminate)(fmi2Component);
    fmi2Status (*do_step)(fmi2Component, double, double, fmi2Boolean);
    fmi2Status (*get_real)(fmi2Component, const fmi2ValueReference *, size_t, double *);
    fmi2Status (*set_real)(fmi2Component, const fmi2ValueReference *, size_t, const double *);
    fmi2Status (*get_state)(fmi2Component, fmi2FMUstate *), (*set_state)(fmi2Component, fmi2FMUstate);
    fmi2Status (*free_state)(fmi2Component, fmi2FMUstate *);
    fmi2Status (*state_size)(fmi2Component, fmi2FMUstate, size_t *);
    fmi2Status (*serialize)(fmi2Component, fmi2FMUstate, char *, size_t);
    fmi2Status (*deserialize)(fmi2Component, const char *, size_t, fmi2FMUstate *);
    void (*free_instance)(fmi2Component);
    LOAD(instantiate, "fmi2Instantiate");
    LOAD(setup, "fmi2SetupExperiment");
    LOAD(enter, "fmi2EnterInitializationMode");
    LOAD(exit_init, "fmi2ExitInitializationMode");
    LOAD(terminate, "fmi2Terminate");
    LOAD(do_step, "fmi2DoStep");
    LOAD(get_real, "fmi2GetReal");
    LOAD(set_real, "fmi2SetReal");
    LOAD(get_state, "fmi2GetFMUstate");
    LOAD(set_state, "fmi2SetFMUstate");
    LOAD(free_state, "fmi2FreeFMUstate");
    LOAD(state_size, "fmi2SerializedFMUstateSize");
    LOAD(serialize, "fmi2SerializeFMUstate");
    LOAD(deserialize, "fmi2DeSerializeFMUstate");
    LOAD(free_instance, "fmi2FreeInstance");

    fmi2CallbackFunctions callbacks = {logger2, calloc, free, NULL, NULL};
    fmi2Component c = instantiate(job->name, 1, job->token, job->resources, &callbacks, 0, 0);
    if (!c) {
        fprintf(stderr, "%s: fmi2Instantiate failed\n", job->name);
        return 1;
    }
    CHECK(setup(c, 0, 0.0, job->start, 1, job->stop));
    CHECK(set_real(c, &job->param_vr, 1, &job->param_value));
    CHECK(enter(c));
    CHECK(exit_init(c));
    double v[MAX_OUT];
    long n = steps_of(job), mid = n - n / 4, rows = 0;
    char *bytes = NULL;
    size_t size = 0;
    CHECK(get_real(c, job->vr, job->n, v));
    print_row("t", job->start, v, job->n);
    for (long i = 0; i < n; i++) {
        if (i == mid) {
            fmi2FMUstate state = NULL;
            CHECK(get_state(c, &state));
            CHECK(state_size(c, state, &size));
            bytes = malloc(size);
            CHECK(serialize(c, state, bytes, size));
            CHECK(free_state(c, &state));
        }
        double t = time_at(job, i);
        CHECK(do_step(c, t, time_at(job, i + 1) - t, 1));
        if (printed(job, i + 1)) {
            CHECK(get_real(c, job->vr, job->n, v));
            print_row("t", time_at(job, i + 1), v, job->n);
            if (i >= mid && rows < MAX_ROWS) memcpy(saved[rows++], v, sizeof(double) * job->n);
        }
    }
    fmi2FMUstate restored = NULL;
    CHECK(deserialize(c, bytes, size, &restored));
    CHECK(set_state(c, restored));
    CHECK(free_state(c, &restored));
    long row = 0, mismatches = 0;
    for (long i = mid; i < n; i++) {
        double t = time_at(job, i);
        CHECK(do_step(c, t, time_at(job, i + 1) - t, 0));
        if (printed(job, i + 1)) {
            CHECK(get_real(c, job->vr, job->n, v));
            if (row < rows && memcmp(saved[row++], v, sizeof(double) * job->n) != 0) mismatches++;
        }
    }
    printf("state %llu bytes, restored run %s\n", (unsigned long long)size, mismatches ? "DIFFERS" : "identical");
    free(bytes);
    CHECK(terminate(c));
    free_instance(c);
    return mismatches != 0;
}

static int run3(const Job *job, void *lib) {
    fmi3Instance (*instantiate)(const char *, const char *, const char *, bool, bool, bool, bool,
                                const fmi3ValueReference *, size_t, void *,
                                void (*)(void *, fmi3Status, const char *, const char *), void *);
    fmi3Status (*enter)(fmi3Instance, bool, double, double, bool, double);
    fmi3Status (*exit_init)(fmi3Instance), (*terminate)(fmi3Instance);
    fmi3Status (*do_step)(fmi3Instance, double, double, bool, bool *, bool *, bool *, double *);
    fmi3Status (*get_f64)(fmi3Instance, const fmi3ValueReference *, size_t, double *, size_t);
    fmi3Status (*set_f64)(fmi3Instance, const fmi3ValueReference *, size_t, const double *, size_t);
    fmi3Status (*get_state)(fmi3Instance, fmi3FMUState *), (*set_state)(fmi3Instance, fmi3FMUState);
    fmi3Status (*free_state)(fmi3Instance, fmi3FMUState *);
    fmi3Status (*state_size)(fmi3Instance, fmi3FMUState, size_t *);
    fmi3Status (*serialize)(fmi3Instance, fmi3FMUState, uint8_t *, size_t);
    fmi3Status (*deserialize)(fmi3Instance, const uint8_t *, size_t, fmi3FMUState *);
    void (*free_instance)(fmi3Instance);
    LOAD(instantiate, "fmi3InstantiateCoSimulation");
    LOAD(enter, "fmi3EnterInitializationMode");
    LOAD(exit_init, "fmi3ExitInitializationMode");
    LOAD(terminate, "fmi3Terminate");
    LOAD(do_step, "fmi3DoStep");
    LOAD(get_f64, "fmi3GetFloat64");
    LOAD(set_f64, "fmi3SetFloat64");
    LOAD(get_state, "fmi3GetFMUState");
    LOAD(set_state, "fmi3SetFMUState");
    LOAD(free_state, "fmi3FreeFMUState");
    LOAD(state_size, "fmi3SerializedFMUStateSize");
    LOAD(serialize, "fmi3SerializeFMUState");
    LOAD(deserialize, "fmi3DeserializeFMUState");
    LOAD(free_instance, "fmi3FreeInstance");

    fmi3Instance c = instantiate(job->name, job->token, job->resources, false, false, false, false, NULL, 0, NULL,
                                 logger3, NULL);
    if (!c) {
        fprintf(stderr, "%s: fmi3InstantiateCoSimulation failed\n", job->name);
        return 1;
    }
    CHECK(set_f64(c, &job->param_vr, 1, &job->param_value, 1));
    CHECK(enter(c, false, 0.0, job->start, true, job->stop));
    CHECK(exit_init(c));
    double v[MAX_OUT];
    long n = steps_of(job), mid = n - n / 4, rows = 0;
    uint8_t *bytes = NULL;
    size_t size = 0;
    bool event, stop_now, early;
    double last;
    CHECK(get_f64(c, job->vr, job->n, v, job->n));
    print_row("t", job->start, v, job->n);
    for (long i = 0; i < n; i++) {
        if (i == mid) {
            fmi3FMUState state = NULL;
            CHECK(get_state(c, &state));
            CHECK(state_size(c, state, &size));
            bytes = malloc(size);
            CHECK(serialize(c, state, bytes, size));
            CHECK(free_state(c, &state));
        }
        double t = time_at(job, i);
        CHECK(do_step(c, t, time_at(job, i + 1) - t, true, &event, &stop_now, &early, &last));
        if (printed(job, i + 1)) {
            CHECK(get_f64(c, job->vr, job->n, v, job->n));
            print_row("t", time_at(job, i + 1), v, job->n);
            if (i >= mid && rows < MAX_ROWS) memcpy(saved[rows++], v, sizeof(double) * job->n);
        }
    }
    fmi3FMUState restored = NULL;
    CHECK(deserialize(c, bytes, size, &restored));
    CHECK(set_state(c, restored));
    CHECK(free_state(c, &restored));
    long row = 0, mismatches = 0;
    for (long i = mid; i < n; i++) {
        double t = time_at(job, i);
        CHECK(do_step(c, t, time_at(job, i + 1) - t, false, &event, &stop_now, &early, &last));
        if (printed(job, i + 1)) {
            CHECK(get_f64(c, job->vr, job->n, v, job->n));
            if (row < rows && memcmp(saved[row++], v, sizeof(double) * job->n) != 0) mismatches++;
        }
    }
    printf("state %llu bytes, restored run %s\n", (unsigned long long)size, mismatches ? "DIFFERS" : "identical");
    free(bytes);
    CHECK(terminate(c));
    free_instance(c);
    return mismatches != 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: host JOBS\n");
        return 2;
    }
    FILE *jobs = fopen(argv[1], "r");
    if (!jobs) {
        fprintf(stderr, "cannot open %s\n", argv[1]);
        return 2;
    }
    static Job job;
    unsigned long long start, stop, step, value;
    while (fscanf(jobs, "%255s %d %4095s %255s %4095s %llx %llx %llx %ld %u %llx %d", job.name, &job.version,
                  job.library, job.token, job.resources, &start, &stop, &step, &job.every, &job.param_vr, &value,
                  &job.n) == 12) {
        job.start = real(start);
        job.stop = real(stop);
        job.step = real(step);
        job.param_value = real(value);
        if (job.n > MAX_OUT || job.n < 1) {
            fprintf(stderr, "%s: %d outputs\n", job.name, job.n);
            return 2;
        }
        for (int k = 0; k < job.n; k++)
            if (fscanf(jobs, "%u", &job.vr[k]) != 1) return 2;
        printf("model %s fmi%d\n", job.name, job.version);
        void *lib = open_library(job.library);
        if (!lib) {
            fprintf(stderr, "%s: cannot load %s (%lu)\n", job.name, job.library, load_error());
            failed = 1;
            continue;
        }
        int rc = job.version == 2 ? run2(&job, lib) : run3(&job, lib);
        if (rc) {
            printf("failed\n");
            failed = 1;
        }
        fflush(stdout);
        close_library(lib);
    }
    fclose(jobs);
    return failed;
}
