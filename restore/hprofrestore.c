/* hprofrestore: turn a stripped HPROF dump back into one viewers open. */
#include "../strip/cli.h"

#include <string.h>

static const char usage[] =
"Usage: hprofrestore [OPTIONS] [IN]\n"
"Refill every stripped primitive array (0xC3) of a dump written by\n"
"hprofstrip or libhprofstrip.so with zeros of its original length, so that\n"
"Eclipse MAT, VisualVM or Android Studio can open it. An unstripped dump\n"
"goes through unchanged.\n"
"\n"
"  IN           input dump; '-' or none: stdin. A zstd, gzip or xz\n"
"               compressed one (known by its magic bytes, from a file or a\n"
"               pipe) is read through zstd -dc, gzip -dc or xz -dc on PATH\n"
"  -o FILE      write FILE (through a temporary file, renamed on success,\n"
"               with IN's permissions); a symlink is followed, a device or\n"
"               FIFO written into; '-' or none: stdout\n"
"  --jvm        also convert an Android 1.0.3 dump to a standard 1.0.2 dump\n"
"               for Eclipse MAT and VisualVM (see README)\n"
"  --app-only   drop zygote and image heap objects (like hprof-conv -z);\n"
"               implies --jvm\n"
"  --salvage    a dump cut short: keep what came whole before the cut\n"
"               (the open heap record closed with its exact length) and\n"
"               exit 0, saying what was dropped; see README\n"
"  --stream     streamed output for a file too: heap records become\n"
"               segments written as soon as their length is known, never\n"
"               patched (a 1.0.1 dump becomes 1.0.2). A pipe, socket or\n"
"               other non-seekable output always gets this form\n"
"  -v           print a summary line on stderr\n"
"  -q           print nothing, not even errors\n"
"  -h, --help   this help\n"
"  -V, --version\n"
"\n"
"Exit status: 0 success, 1 invalid input or I/O error, 2 usage error.\n";

static int option(const char *arg, unsigned *flags)
{
	if (!strcmp(arg, "--jvm")) {
		*flags |= HS_JVM;
		return 1;
	}
	if (!strcmp(arg, "--app-only")) {
		*flags |= HS_JVM | HS_APP_ONLY;
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct cli_tool tool = {
		"hprofrestore", usage, "restored", HS_RESTORE, option, NULL
	};
	return cli_main(&tool, argc, argv);
}
