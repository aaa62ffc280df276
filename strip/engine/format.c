/*
 * The format, named: the error messages, the record and sub-record names
 * (from the lists in hprof.h), and the basic types' sizes.
 */
#include "internal.h"

#define HS_MSG_(name, msg) msg,
static const char *const messages[] = { HS_ERRORS(HS_MSG_) };
#undef HS_MSG_

const char *hs_strerror(enum hs_err err)
{
	return (unsigned)err < HS_E_COUNT_ ? messages[err] : "unknown error";
}

unsigned hs_type_size(unsigned type, unsigned idsize)
{
	switch (type) {
	case 2: return idsize;       /* object */
	case 4: case 8: return 1;    /* boolean, byte */
	case 5: case 9: return 2;    /* char, short */
	case 6: case 10: return 4;   /* float, int */
	case 7: case 11: return 8;   /* double, long */
	default: return 0;
	}
}

const char *hs_rec_name(unsigned tag)
{
	switch (tag) {
#define HS_NAME_(tag, name) case tag: return #name;
	HS_RECORDS(HS_NAME_)
#undef HS_NAME_
	default: return NULL;
	}
}

const char *hs_sub_name(unsigned tag)
{
	switch (tag) {
#define HS_NAME_(tag, name, ids, bytes) case tag: return #name;
	HS_SUBRECORDS(HS_NAME_)
#undef HS_NAME_
	default: return NULL;
	}
}
