/*
 * A stand-in for bytehook.h on the host: the part of its API that
 * examples/android/hook-example.c uses, so that the example compiles and
 * runs unchanged (tests/embedtest.c implements the two functions).
 */
#ifndef HPROFSTRIP_BYTEHOOK_HOST_H
#define HPROFSTRIP_BYTEHOOK_HOST_H

typedef void *bytehook_stub_t;
typedef void (*bytehook_hooked_t)(bytehook_stub_t task_stub, int status_code,
                                  const char *caller_path_name,
                                  const char *sym_name, void *new_func,
                                  void *prev_func, void *arg);

bytehook_stub_t bytehook_hook_single(const char *caller_path_name,
                                     const char *callee_path_name,
                                     const char *sym_name, void *new_func,
                                     bytehook_hooked_t hooked,
                                     void *hooked_arg);
void *bytehook_get_prev_func(void *func);

/* bytehook's own definitions, for C */
#define BYTEHOOK_CALL_PREV(func, func_sig, ...) \
	((func_sig)bytehook_get_prev_func((void *)(func)))(__VA_ARGS__)
#define BYTEHOOK_POP_STACK() do { } while (0)

#endif
