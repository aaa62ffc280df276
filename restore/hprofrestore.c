/* hprofrestore: turn a stripped HPROF dump back into one viewers open. */
#include "../strip/cli/cli.h"

static const char usage[] =
"Usage: hprofrestore [OPTIONS] [IN]\n"
"Refill every stripped primitive array (0xC3) of a dump written by\n"
"hprofstrip or libhprofstrip.so with zeros of its original length, so that\n"
"Eclipse MAT, VisualVM or Android Studio can open it. An unstripped dump\n"
"goes through unchanged.\n"
"\n"
CLI_HELP_IN_OUT
"  --jvm        also convert an Android 1.0.3 dump to a standard 1.0.2 dump\n"
"               for Eclipse MAT and VisualVM (see hprofrestore(1))\n"
"  --app-only   drop zygote and image heap objects (like hprof-conv -z);\n"
"               implies --jvm\n"
"  --unredact MAP\n"
"               give back the names hprofstrip --redact=names (or\n"
"               HPROFSTRIP_REDACT=names) made tokens, from their map\n"
"               (OUT.names); a map of another dump is refused\n"
CLI_HELP_COMMON;

static const struct cli_option options[] = {
	{ "--jvm", HS_JVM },
	{ "--app-only", HS_JVM | HS_APP_ONLY },
	{ NULL, 0 },
};

int main(int argc, char **argv)
{
	static const struct cli_tool tool = {
		"hprofrestore", usage, "restored", HS_RESTORE, options, NULL, 0, 1,
		NULL, NULL
	};
	return cli_main(&tool, argc, argv);
}
