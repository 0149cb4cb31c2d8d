/*
 * units.h: the unit conversions of the core, in one place. The core
 * computes in SI units (bytes, seconds, FLOP/s, bytes/s); the JSON keys
 * name the human unit they are given in (memory_gib, tensor_tflops,
 * hbm_gb_per_s, slow_gbit_per_s, kernel_latency_us), and each field's row
 * (trainplan.h) holds its key's scale to SI, one of these.
 */
#ifndef TP_UNITS_H
#define TP_UNITS_H

#define UNIT_MIB 1048576.0          /* bytes */
#define UNIT_GIB 1073741824.0       /* bytes (TP_GIB in trainplan.h) */
#define UNIT_TERA 1e12              /* TFLOP/s -> FLOP/s */
#define UNIT_GB_PER_S 1e9           /* GB/s -> bytes/s */
#define UNIT_GBIT_PER_S (1e9 / 8.0) /* Gbit/s -> bytes/s, as NICs are sold */
#define UNIT_US 1e-6                /* µs -> s */
#define UNIT_DAY_S 86400.0
#define UNIT_HOUR_S 3600.0

#endif /* TP_UNITS_H */
