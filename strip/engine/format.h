/*
 * The HPROF format, named once: the magic, the record and sub-record
 * tags, the basic types' sizes, big-endian numbers. The engine's API
 * (hprof.h) includes it; the tools and the tests use it too.
 */
#ifndef HPROFSTRIP_FORMAT_H
#define HPROFSTRIP_FORMAT_H

#include <stdint.h>

/* Every dump starts with this, then "1\0", "2\0" or "3\0". */
#define HS_MAGIC "JAVA PROFILE 1.0."
#define HS_MAGIC_LEN 17

/* The format, named once. Top-level records: X(tag, NAME). */
#define HS_RECORDS(X)                                                       \
	X(0x01, STRING)                                                     \
	X(0x02, LOAD_CLASS)                                                 \
	X(0x03, UNLOAD_CLASS)                                               \
	X(0x04, STACK_FRAME)                                                \
	X(0x05, STACK_TRACE)                                                \
	X(0x06, ALLOC_SITES)                                                \
	X(0x07, HEAP_SUMMARY)                                               \
	X(0x0A, START_THREAD)                                               \
	X(0x0B, END_THREAD)                                                 \
	X(0x0C, HEAP_DUMP)                                                  \
	X(0x0D, CPU_SAMPLES)                                                \
	X(0x0E, CONTROL_SETTINGS)                                           \
	X(0x1C, HEAP_DUMP_SEGMENT)                                          \
	X(0x2C, HEAP_DUMP_END)

/* Heap sub-records: X(tag, NAME, ids, bytes). The fixed part is the tag,
 * ids identifiers and bytes more bytes; a class dump's ends at its
 * constant pool count, and instance fields, array elements and a class
 * dump's tables follow theirs. The Android ones (0x89-0x90, 0xC3, 0xFE)
 * are ART's and Dalvik's. */
#define HS_SUBRECORDS(X)                                                    \
	X(0xFF, ROOT_UNKNOWN, 1, 0)                                         \
	X(0x01, ROOT_JNI_GLOBAL, 2, 0)                                      \
	X(0x02, ROOT_JNI_LOCAL, 1, 8)                                       \
	X(0x03, ROOT_JAVA_FRAME, 1, 8)                                      \
	X(0x04, ROOT_NATIVE_STACK, 1, 4)                                    \
	X(0x05, ROOT_STICKY_CLASS, 1, 0)                                    \
	X(0x06, ROOT_THREAD_BLOCK, 1, 4)                                    \
	X(0x07, ROOT_MONITOR_USED, 1, 0)                                    \
	X(0x08, ROOT_THREAD_OBJECT, 1, 8)                                   \
	X(0x20, CLASS_DUMP, 7, 10)                                          \
	X(0x21, INSTANCE_DUMP, 2, 8)                                        \
	X(0x22, OBJECT_ARRAY_DUMP, 2, 8)                                    \
	X(0x23, PRIMITIVE_ARRAY_DUMP, 1, 9)                                 \
	X(0x89, ROOT_INTERNED_STRING, 1, 0)                                 \
	X(0x8A, ROOT_FINALIZING, 1, 0)                                      \
	X(0x8B, ROOT_DEBUGGER, 1, 0)                                        \
	X(0x8C, ROOT_REFERENCE_CLEANUP, 1, 0)                               \
	X(0x8D, ROOT_VM_INTERNAL, 1, 0)                                     \
	X(0x8E, ROOT_JNI_MONITOR, 1, 8)                                     \
	X(0x90, UNREACHABLE, 1, 0)                                          \
	X(0xC3, PRIMITIVE_ARRAY_NODATA, 1, 9)                               \
	X(0xFE, HEAP_DUMP_INFO, 1, 4)

#define HS_REC_ENUM_(tag, name) HS_REC_##name = tag,
#define HS_SUB_ENUM_(tag, name, ids, bytes) HS_SUB_##name = tag,
enum hs_rec_tag { HS_RECORDS(HS_REC_ENUM_) };
enum hs_sub_tag { HS_SUBRECORDS(HS_SUB_ENUM_) };
#undef HS_REC_ENUM_
#undef HS_SUB_ENUM_

/* The names of record and sub-record tags ("HEAP_DUMP_SEGMENT"), or NULL. */
const char *hs_rec_name(unsigned tag);
const char *hs_sub_name(unsigned tag);

/* Basic type sizes (0: invalid); type 2 is an object id. */
unsigned hs_type_size(unsigned type, unsigned idsize);

/* Big-endian helpers shared by the tools. */
static inline uint32_t hs_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}
static inline void hs_put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

#endif
