#!/system/bin/sh
# wrap.sh for a debuggable Android app (Android 8.1, API 27, and later):
# starts the app with libhprofstrip.so preloaded, so the heap dumps ART
# writes reach the disk already stripped (primitive array contents gone).
#
# Put it, executable, next to the shim in the APK, for each ABI:
#   app/src/main/resources/lib/arm64-v8a/wrap.sh
#   app/src/main/jniLibs/arm64-v8a/libhprofstrip.so
# The app must be debuggable, and its native libraries extracted to disk
# (useLegacyPackaging true / android:extractNativeLibs="true"), so that
# both files are found in the app's native library directory.
#
# Which dumps: files the app itself opens under /data (Debug.dumpHprofData,
# LeakCanary, KOOM) that match HPROFSTRIP_PATTERN, and, by sniffing, dumps
# written to an fd the app was given (am dumpheap). Set HPROFSTRIP_PATTERN
# before the app starts to override; messages go to HPROFSTRIP_LOG if set
# (the app's stderr is /dev/null on Android), e.g. a file in the app's
# cache directory.
HERE=$(cd "$(dirname "$0")" && pwd)
export HPROFSTRIP_PATTERN="${HPROFSTRIP_PATTERN:-/data/*.hprof:/storage/*.hprof:/sdcard/*.hprof}"
# Bitmaps' pictures (am dumpheap -b, dumpheap.sh -b) are stripped too
# unless the next line is uncommented: they are user data.
# export HPROFSTRIP_KEEP=bitmaps
export LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD }$HERE/libhprofstrip.so"
exec "$@"
