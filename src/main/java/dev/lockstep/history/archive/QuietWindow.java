package dev.lockstep.history.archive;

import java.time.Instant;
import java.time.ZoneId;

/** The hours [start, end) in which scheduled archival moves history; it may wrap midnight, start == end is all day. */
record QuietWindow(int startHour, int endHour, ZoneId zone) {

    boolean contains(Instant instant) {
        if (startHour == endHour) {
            return true;
        }
        int hour = instant.atZone(zone).getHour();
        return startHour < endHour ? hour >= startHour && hour < endHour : hour >= startHour || hour < endHour;
    }

    @Override
    public String toString() {
        return "%02d:00-%02d:00 %s".formatted(startHour, endHour, zone);
    }
}
