package schedule

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// ParseDate reads a date as Salt's schedule does with dateutil's parser:
// ISO 8601 and the common numeric and named-month forms, and a bare time
// of day ("3:00pm", "17:30"), optionally with a weekday ("Monday 5pm"),
// which falls on today (the next such weekday) as dateutil's defaults do.
// Times are local, as Salt's naive datetimes.
func ParseDate(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, errors.New("empty date string")
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.In(now.Location()), nil
	}
	for _, layout := range dateLayouts {
		if t, err := time.ParseInLocation(layout, s, now.Location()); err == nil {
			return t, nil
		}
		if t, err := time.ParseInLocation(layout, strings.ToUpper(s), now.Location()); err == nil {
			return t, nil
		}
	}
	return parseTimeOfDay(s, now)
}

var dateLayouts = []string{
	"2006-01-02T15:04:05.999999", "2006-01-02T15:04:05", "2006-01-02T15:04",
	"2006-01-02 15:04:05.999999", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02",
	"2006/01/02 15:04:05", "2006/01/02 15:04", "2006/01/02",
	"01/02/2006 15:04:05", "01/02/2006 15:04", "01/02/2006 3:04PM", "01/02/2006 3:04 PM", "01/02/2006 3PM", "01/02/2006",
	"1/2/2006 15:04:05", "1/2/2006 15:04", "1/2/2006 3:04PM", "1/2/2006 3:04 PM", "1/2/2006 3PM", "1/2/2006",
	"Jan 2 2006 15:04:05", "Jan 2 2006 15:04", "Jan 2 2006 3:04PM", "Jan 2 2006", "Jan 2, 2006 15:04", "Jan 2, 2006 3:04PM", "Jan 2, 2006",
	"January 2 2006 15:04", "January 2 2006 3:04PM", "January 2, 2006 15:04", "January 2, 2006 3:04PM", "January 2, 2006", "January 2 2006",
	"2 Jan 2006 15:04:05", "2 Jan 2006 15:04", "2 Jan 2006", "2 January 2006 15:04", "2 January 2006",
	"Mon, 02 Jan 2006 15:04:05", "Mon Jan _2 15:04:05 2006",
}

var (
	clockRE   = regexp.MustCompile(`^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$`)
	weekdayRE = regexp.MustCompile(`^(mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(day|sday|nesday|rsday|urday)?,?$`)
)

var weekdays = map[string]time.Weekday{
	"mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday, "thu": time.Thursday,
	"fri": time.Friday, "sat": time.Saturday, "sun": time.Sunday,
}

// parseTimeOfDay reads "[weekday] time" or "time [weekday]".
func parseTimeOfDay(s string, now time.Time) (time.Time, error) {
	fields := strings.Fields(strings.ToLower(s))
	// "5:00 pm": join a detached meridian.
	var toks []string
	for _, f := range fields {
		if (f == "am" || f == "pm" || f == "a.m." || f == "p.m.") && len(toks) > 0 {
			toks[len(toks)-1] += f
			continue
		}
		toks = append(toks, f)
	}
	wd, haveWD := time.Weekday(0), false
	hour, minute, sec, haveClock := 0, 0, 0, false
	for _, tok := range toks {
		if m := weekdayRE.FindStringSubmatch(tok); m != nil && !haveWD {
			wd, haveWD = weekdays[m[1][:3]], true
			continue
		}
		if m := clockRE.FindStringSubmatch(tok); m != nil && !haveClock {
			hour, _ = strconv.Atoi(m[1])
			if m[2] != "" {
				minute, _ = strconv.Atoi(m[2])
			}
			if m[3] != "" {
				sec, _ = strconv.Atoi(m[3])
			}
			switch strings.ReplaceAll(m[4], ".", "") {
			case "am":
				if hour == 12 {
					hour = 0
				} else if hour > 12 {
					return time.Time{}, fmt.Errorf("invalid hour in %q", s)
				}
			case "pm":
				if hour < 12 {
					hour += 12
				} else if hour > 12 {
					return time.Time{}, fmt.Errorf("invalid hour in %q", s)
				}
			default:
				if m[2] == "" {
					// A bare number is not a time of day.
					return time.Time{}, fmt.Errorf("unknown string format: %s", s)
				}
			}
			if hour > 23 || minute > 59 || sec > 59 {
				return time.Time{}, fmt.Errorf("invalid time in %q", s)
			}
			haveClock = true
			continue
		}
		return time.Time{}, fmt.Errorf("unknown string format: %s", s)
	}
	if !haveWD && !haveClock {
		return time.Time{}, fmt.Errorf("unknown string format: %s", s)
	}
	y, mo, d := now.Date()
	t := time.Date(y, mo, d, hour, minute, sec, 0, now.Location())
	if haveWD {
		t = t.AddDate(0, 0, (int(wd)-int(t.Weekday())+7)%7)
	}
	return t, nil
}

// Strptime parses s with a Python strftime format (the directives
// schedule formats use: %Y %y %m %d %H %I %M %S %f %p %b %B %a %A %j %%).
func Strptime(s, format string, loc *time.Location) (time.Time, error) {
	var layout strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 >= len(format) {
			layout.WriteByte(c)
			continue
		}
		i++
		switch format[i] {
		case 'Y':
			layout.WriteString("2006")
		case 'y':
			layout.WriteString("06")
		case 'm':
			layout.WriteString("01")
		case 'd':
			layout.WriteString("02")
		case 'H':
			layout.WriteString("15")
		case 'I':
			layout.WriteString("03")
		case 'M':
			layout.WriteString("04")
		case 'S':
			layout.WriteString("05")
		case 'f':
			layout.WriteString("000000")
		case 'p':
			layout.WriteString("PM")
		case 'b':
			layout.WriteString("Jan")
		case 'B':
			layout.WriteString("January")
		case 'a':
			layout.WriteString("Mon")
		case 'A':
			layout.WriteString("Monday")
		case 'j':
			layout.WriteString("002")
		case '%':
			layout.WriteByte('%')
		default:
			return time.Time{}, fmt.Errorf("unsupported directive %%%c in %q", format[i], format)
		}
	}
	return time.ParseInLocation(layout.String(), s, loc)
}

var cronParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseCron reads a cron expression as croniter does: five fields, or
// six with the seconds last, or an @ descriptor.
func ParseCron(expr string) (cron.Schedule, error) {
	f := strings.Fields(expr)
	if len(f) == 6 {
		expr = strings.Join(append([]string{f[5]}, f[:5]...), " ")
	}
	return cronParser.Parse(expr)
}
