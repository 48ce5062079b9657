/*
 * uptime -- the time of day, how long the system has been up, the number
 * of users and the load averages: w's first line (see w.c).
 * usage: uptime
 */
#define	UPTIME
#include "w.c"
