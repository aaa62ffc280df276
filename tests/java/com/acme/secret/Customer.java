/*
 * Customer: the class whose values tests/java/Secrets.java holds as
 * secrets, for the end-to-end tests of hprofstrip --redact and
 * HPROFSTRIP_REDACT=values (bats/redact.bats). It has a package of its
 * own, as an application's classes do, so that its name in a dump is
 * "com.acme.secret.Customer" and not a test's bare name.
 *
 * Each instance holds the same values, built in: a dump of Secrets' heap
 * holds every one of them once per instance, so a scan of an unredacted
 * dump finds hundreds. The values are chosen so that their big-endian
 * bytes (as HPROF stores them) do not turn up by chance: no zero byte, no
 * run, none of them an address or a small count.
 *
 * KEY is computed in the static initializer, not a compile-time constant:
 * javac would copy a constant into the classes that read it, and the
 * runtime must hold it as a static field's value, which is what a class
 * dump's statics are.
 */
package com.acme.secret;

public final class Customer {
    public static final long KEY;

    static {
        // 0x9A47C1E2F58D6B3D, from a call javac does not fold
        long k = Long.rotateLeft(0x3D9A47C1E2F58D6BL, 8);
        KEY = k;
    }

    private long cardNumber = 0x5EC2E7C0FFEE1234L;
    private int pin = 0x5EC0D3A7;
    private double balance = 98765.4321;
    private boolean isAdmin = true;
    private boolean vip = true;
    /** Who brought this customer in: a reference, which redaction keeps. */
    private final Customer referrer;

    public Customer(Customer referrer) {
        this.referrer = referrer;
    }
}
