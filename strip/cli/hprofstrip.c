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
"  --keep-bitmaps\n"
"               Android: keep the elements of bitmaps' byte arrays (the\n"
"               images am dumpheap -b puts in Bitmap$DumpData.buffers, the\n"
"               pixels of API <= 25's Bitmap.mBuffer), so viewers show the\n"
"               pictures; with --keep-strings, both. A file is read two or\n"
"               three times and all are kept; a pipe is streamed, and an\n"
"               array that comes before its bitmap is kept only if it\n"
"               starts as a PNG, JPEG or WEBP file (see README). Pictures\n"
"               are user data\n"
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
"  --histo      print the class histogram of IN instead, in jmap -histo's\n"
"               layout (instances and shallow bytes per class, sorted by\n"
"               bytes, a Total row); --baseline OLD: the change per class\n"
"               since OLD. See --histo --help\n"
"  --json       with --info or --histo: one JSON object\n"
CLI_HELP_COMMON;

static const char histo_usage[] =
"Usage: hprofstrip --histo [--json] [--baseline OLD] [--app-only] [--salvage]\n"
"                  [-o FILE] [-v] [-q] [IN]\n"
"Print the class histogram of an HPROF heap dump: plain, stripped (a 0xC3\n"
"array counts by its length), --app-only's, redacted (names as the dump\n"
"has them: tokens), compressed, from a file or a pipe. jmap -histo's layout:\n"
"a header, one row per class (rank, instances, bytes, name in jmap's form:\n"
"java.lang.String, [B, [Ljava.lang.Object;) sorted by bytes, then by name,\n"
"and a Total row; an Android (1.0.3) dump gets a column of bytes per heap\n"
"(app, zygote, image...) before the name. Bytes are the dump's shallow\n"
"sizes: an instance is its class dump's instance size, an array its length\n"
"x element size (x id size for object arrays), each plus one id size for\n"
"the object's header. Lines starting '#' after the Total say what the\n"
"counts lack (a cut dump, classes past the table of 114688).\n"
"\n"
"  IN           input dump; '-' or none: stdin; zstd, gzip, xz or lz4\n"
"               compressed, it is read through zstd/gzip/xz/lz4 -dc\n"
"  -o FILE      write FILE (through a temporary file, renamed once whole,\n"
"               with IN's permissions); a symlink is followed, a device or\n"
"               FIFO written into; '-' or none: stdout\n"
"  --json       one JSON object instead of text\n"
"  --baseline OLD\n"
"               print the change per class since OLD instead: OLD is a\n"
"               dump (read as IN is, with the same --app-only and\n"
"               --salvage) or a histogram this command wrote (text or\n"
"               --json; a damaged one, whose Total is not the sum of its\n"
"               rows, is refused). Classes are matched by name (same-named\n"
"               classes summed), every class of either dump gets a row:\n"
"               rank, change in instances, change in bytes, instances and\n"
"               bytes in IN, name; sorted by the change in bytes, largest\n"
"               growth first (then instances, then name); a Total row\n"
"  --app-only   Android 1.0.3 dumps: count only the objects --app-only\n"
"               keeps (not those of the zygote and image heaps)\n"
"  --salvage    a dump cut short: the histogram of the objects before the\n"
"               cut, marked cut (a '#' note; JSON \"cut\"). Without it a\n"
"               cut dump is an error, and nothing is printed\n"
"  -v           print a summary line on stderr (objects, bytes, the three\n"
"               largest classes)\n"
"  -q           print nothing on stderr, not even errors\n"
"\n"
"Nothing is printed unless the whole input was read: invalid input gets\n"
"one line naming its offset on stderr.\n"
"Exit status: 0 success, 1 invalid input or I/O error, 2 usage error.\n";

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
	{ "--keep-bitmaps", HS_KEEP_BITMAPS },
	{ "--app-only", HS_APP_ONLY },
	{ NULL, 0 },
};

int main(int argc, char **argv)
{
	static const struct cli_tool tool = {
		"hprofstrip", usage, "stripped", 0, options, info_usage, 1, 0,
		histo_usage
	};
	return cli_main(&tool, argc, argv);
}
