/* hprofstrip: strip primitive-array contents from an HPROF heap dump. */
#include "cli.h"


static const char usage[] =
"Usage: hprofstrip [OPTIONS] [IN]\n"
"Strip the element bytes of every primitive array from an HPROF heap dump.\n"
"Each PRIMITIVE_ARRAY_DUMP (0x23) becomes PRIMITIVE_ARRAY_NODATA (0xC3),\n"
"keeping its id, length and type; record lengths are fixed up.\n"
"hprofrestore turns the result back into a dump that viewers open.\n"
"\n"
CLI_HELP_IN_OUT
"  --redact, --redact=values\n"
"               also zero every primitive value: instance fields, static\n"
"               fields, constant pool values. References, ids, lengths,\n"
"               types and the object graph stay (see README, \"Sharing\n"
"               dumps safely\"). A dump whose class dumps come after\n"
"               instances (Android, the JDK 6 hprof agent) is read twice\n"
"               from a file; from a pipe, such instances lose their\n"
"               references too (said)\n"
"  --redact=names\n"
"               also make every name that is not the runtime's (classes,\n"
"               packages, fields, methods, source files, threads, and\n"
"               the string literals a HotSpot dump lists) a token of the\n"
"               same length; the originals go to OUT.names, for\n"
"               hprofrestore --unredact. HPROFSTRIP_NAMES_KEY (32 hex\n"
"               digits) fixes the tokens' key; else it is random\n"
"  --redact=LEVEL\n"
"               in any case, blanks around it left out: values, 1, yes,\n"
"               true, on (values); names; 0, no, false, off (none)\n"
"  --names-map FILE\n"
"               with --redact=names: the map there, not OUT.names\n"
"               (needed when OUT is stdout)\n"
"  --keep-strings\n"
"               keep the elements of the arrays that String values point at\n"
"               (and JDK <= 8 Thread names), so strings stay readable; a\n"
"               file is read twice (a compressed one decompressed twice)\n"
"               and all are kept, a pipe is streamed and most are (see\n"
"               README). Strings can hold personal data\n"
"  --app-only   Android 1.0.3 dumps: also drop the objects of the zygote\n"
"               and image heaps (instance, object-array and primitive-array\n"
"               dumps in heaps Z and I; class dumps and roots stay) and\n"
"               heap segments left empty, as hprofrestore --app-only does;\n"
"               the dump stays 1.0.3. A path from a GC root through a\n"
"               framework object to an app object is lost (see README).\n"
"               A 1.0.1/1.0.2 dump is stripped as without it\n"
"  --info       print a census of IN instead (records, sub-records and\n"
"               primitive arrays by tag, stripped arrays, heaps) and whether\n"
"               it is well-formed; exit 1 if not. See --info --help\n"
"  --json       with --info: one JSON object\n"
CLI_HELP_COMMON;

static const char info_usage[] =
"Usage: hprofstrip --info [--json] [--salvage] [-q] [IN]\n"
"Print a census of an HPROF heap dump, stripped or not: header, records and\n"
"heap sub-records by tag (count, bytes), primitive-array bytes by element\n"
"type, stripped arrays (0xC3) and the bytes they stand for, bytes per heap\n"
"(Android 1.0.3). The last line says whether the dump is well-formed or\n"
"names the first offset where it is not.\n"
"\n"
"  IN           input dump; '-' or none: stdin; zstd, gzip, xz or lz4\n"
"               compressed, it is read through zstd/gzip/xz -dc\n"
"  --json       one JSON object instead of text\n"
"  --salvage    a dump cut short: report what --salvage would keep\n"
"  -q           nothing on stderr, not even usage errors\n"
"\n"
"Exit status: 0 well-formed, 1 malformed or I/O error, 2 usage error.\n";

static const struct cli_option options[] = {
	{ "--keep-strings", HS_KEEP_STRINGS },
	{ "--app-only", HS_APP_ONLY },
	{ NULL, 0 },
};

int main(int argc, char **argv)
{
	static const struct cli_tool tool = {
		"hprofstrip", usage, "stripped", 0, options, info_usage, 1, 0
	};
	return cli_main(&tool, argc, argv);
}
