/*
 * An empty shared library, built as stub/libjvm.so and stub/libart.so.
 * The shim sniffs dumps only in a process that hosts a Java runtime (it
 * looks for a loaded libjvm.so or libart.so). The replay driver loads the
 * stub of the runtime it replays, so that its process is such a process,
 * as the real one is; tests preload it into other programs for the same.
 */
int hprofstrip_runtime_stub;
