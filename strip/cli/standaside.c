/*
 * Linked into hprofstrip and hprofrestore: when libhprofstrip.so is
 * preloaded into them (an exported LD_PRELOAD: a Dockerfile ENV, a shell
 * profile, a JVM's -XX:OnOutOfMemoryError hook), it must not strip their
 * output again. Before main, this asks the shim to stand aside; without
 * the shim the weak reference is NULL and nothing happens.
 */
extern void hprofstrip_preload_standaside(void) __attribute__((weak));

__attribute__((constructor)) static void standaside(void)
{
	if (hprofstrip_preload_standaside)
		hprofstrip_preload_standaside();
}
