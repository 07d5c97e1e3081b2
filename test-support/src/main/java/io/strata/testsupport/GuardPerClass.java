package io.strata.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a test class whose tests legitimately hand a resource from one test to the next (a server
 * started by the first test and reused, a cache warmed once): {@link ResourceGuard} then takes
 * its baseline before the class and checks after it, not around each test. The reason goes in
 * {@link #value()}, so that the exception is read where it is made.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface GuardPerClass {
    /** Why the tests of this class share resources. */
    String value();
}
