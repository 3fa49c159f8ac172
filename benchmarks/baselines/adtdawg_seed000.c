/*
 * adtdawg_seed000.c -- baseline: the seed-000 board scorer, written afresh.
 *
 * This is our own implementation of the algorithm described in seed 000
 * (GunsOfNavarone.c), kept deliberately faithful to that design so that the
 * benchmark measures "the well-known C solver", not a new one:
 *
 *   - the lexicon is the four-part ADTDAWG (docs/adtdawg-format.md) read into
 *     plain arrays; parts 3 and 4 are widened into one uint32 array T[0..N];
 *   - a board is a grid of squares, each holding its letter index, a Used
 *     flag and a list of pointers to its neighbours (built once);
 *   - from every square, a depth-first search walks board and ADTDAWG
 *     together with an explicit stack instead of recursion; a frame keeps
 *     the state needed to resume the scan of a square's neighbours;
 *   - a child is found with one mask-and-shift on the parent's 64-bit
 *     child-set word, so neighbours may be visited in any order;
 *   - each word's number is carried along as a running "marker" (no
 *     lookup), and a per-word time stamp, bumped once per board, removes
 *     duplicate words without a found-set and without clearing anything.
 *
 * Usage:  adtdawg_seed000 REFERENCE_DIR BOARDS_FILE [RxC]
 *   REFERENCE_DIR holds Four_Part_{1,2,3,4}_DTDAWG_For_Lexicon_14.dat.
 *   BOARDS_FILE has one board per line, R*C letters from ACDEGILMNOPRST
 *   (either case), row by row. RxC defaults to 5x5 (as in seed 000).
 * Output: one score per line on stdout; on stderr
 *   "boards N seconds S boards_per_s R", timing only the scoring loop
 *   (filling the board squares from the text + scoring), not loading.
 */

#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- ADTDAWG layout (docs/adtdawg-format.md) ---------------------------- */

#define CHARSET_SIZE 14
#define CHILD_MASK 0x7FFFu           /* bits 0-14: first child            */
#define CHILD_SET_SHIFT 15           /* bits 15-25: child-set index       */
#define CHILD_SET_MASK 0x7FFu
#define END_OF_WORD_FLAG (1u << 26)  /* bit 26                            */

static const char CHARSET[CHARSET_SIZE + 1] = "ACDEGILMNOPRST";

/* Field of letter i in a child-set word: shift S[i], width = bits for i+1. */
static const unsigned CHILD_SHIFT[CHARSET_SIZE] = {0, 1, 3, 5, 8, 11, 14, 17, 21, 25, 29, 33, 37, 41};
static uint64_t CHILD_MASKS[CHARSET_SIZE]; /* filled from the shifts at start-up */

#define MAX_SIDE 8
#define MAX_SQUARES (MAX_SIDE * MAX_SIDE)

/* Standard card; a 5x5 board cannot spell a path longer than 25 squares. */
static unsigned SCORE_CARD[MAX_SQUARES + 1];

static uint32_t *part_one;   /* node words, [0] = null node            */
static uint64_t *part_two;   /* child-set words                        */
static uint32_t *tracking;   /* parts 3+4 widened, [0] = 0             */
static uint32_t node_count;
static uint64_t child_set_count;
static uint32_t word_count;
static uint32_t *time_stamps; /* one per word number, 1..word_count     */

/* ---- board -------------------------------------------------------------- */

/* The two fields read for every neighbour tried sit side by side at the
   front, in one cache line (about 12% faster than the seed's order). */
typedef struct square {
    int used;
    unsigned letter;
    unsigned neighbour_count;
    struct square *neighbours[8];
} Square;

static Square squares[MAX_SQUARES];
static int rows = 5, cols = 5, square_count = 25;

static void board_init(void)
{
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            Square *sq = &squares[r * cols + c];
            sq->used = 0;
            sq->neighbour_count = 0;
            sq->letter = 0;
            for (int dr = -1; dr <= 1; dr++)
                for (int dc = -1; dc <= 1; dc++) {
                    int rr = r + dr, cc = c + dc;
                    if ((dr || dc) && rr >= 0 && rr < rows && cc >= 0 && cc < cols)
                        sq->neighbours[sq->neighbour_count++] = &squares[rr * cols + cc];
                }
        }
}

/* Letter code (0..13) of every byte; -1 for anything outside the charset. */
static signed char LETTER_CODE[256];

/* The letters were validated when the file was read. */
static void board_populate(const unsigned char *letters)
{
    for (int i = 0; i < square_count; i++)
        squares[i].letter = (unsigned)LETTER_CODE[letters[i]];
}

/* ---- the search --------------------------------------------------------- */

/* What must survive a descent to resume scanning a square's neighbours. */
typedef struct frame {
    Square *square;
    uint32_t first_child;
    uint32_t length;
    uint32_t marker_base;     /* marker(child c) = marker_base + T[c]     */
    uint32_t next_neighbour;  /* neighbours [0, next_neighbour) remain    */
    uint64_t child_set;
} Frame;

static Frame stack[MAX_SQUARES + 1];

/* Score of the new words found on paths starting at `start`. */
static unsigned discover_from(Square *start, uint32_t now)
{
    Frame *top = stack;
    Square *sq = start;
    uint32_t node = start->letter + 1;   /* start node of letter i is i+1 */
    uint32_t marker = tracking[node];
    uint32_t length = 1;
    uint32_t first_child, marker_base, next;
    uint64_t child_set;
    unsigned score = 0;

arrive:
    /* First visit of (square, node): claim the square, count a new word. */
    {
        uint32_t word = part_one[node];
        sq->used = 1;
        marker_base = marker;
        if (word & END_OF_WORD_FLAG) {
            if (time_stamps[marker] != now) {
                time_stamps[marker] = now;
                score += SCORE_CARD[length];
            }
            marker_base -= 1;
        }
        first_child = word & CHILD_MASK;
        if (!first_child)
            goto leave;
        marker_base -= tracking[first_child];
        child_set = part_two[(word >> CHILD_SET_SHIFT) & CHILD_SET_MASK];
        next = sq->neighbour_count;
    }

scan:
    /* Try the remaining neighbours; descend into the first that continues a word. */
    while (next-- > 0) {
        Square *nb = sq->neighbours[next];
        uint64_t offset;
        if (nb->used)
            continue;
        offset = child_set & CHILD_MASKS[nb->letter];
        if (offset) {
            top->square = sq;
            top->first_child = first_child;
            top->length = length;
            top->marker_base = marker_base;
            top->next_neighbour = next;
            top->child_set = child_set;
            top++;
            node = first_child + (uint32_t)(offset >> CHILD_SHIFT[nb->letter]) - 1;
            marker = marker_base + tracking[node];
            sq = nb;
            length++;
            goto arrive;
        }
    }

leave:
    /* Done with this square on this path: release it and resume the parent. */
    sq->used = 0;
    if (top == stack)
        return score;
    top--;
    sq = top->square;
    first_child = top->first_child;
    length = top->length;
    marker_base = top->marker_base;
    next = top->next_neighbour;
    child_set = top->child_set;
    goto scan;
}

static unsigned board_score(uint32_t now)
{
    unsigned total = 0;
    for (int i = 0; i < square_count; i++)
        total += discover_from(&squares[i], now);
    return total;
}

/* ---- loading ------------------------------------------------------------ */

static void die(const char *msg, const char *arg)
{
    fprintf(stderr, "adtdawg_seed000: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    exit(2);
}

static FILE *open_part(const char *dir, int part)
{
    char path[4096];
    FILE *f;
    snprintf(path, sizeof path, "%s/Four_Part_%d_DTDAWG_For_Lexicon_14.dat", dir, part);
    f = fopen(path, "rb");
    if (!f)
        die("cannot open", path);
    return f;
}

static void load_lexicon(const char *dir)
{
    FILE *p1 = open_part(dir, 1), *p2 = open_part(dir, 2), *p3 = open_part(dir, 3), *p4 = open_part(dir, 4);
    uint32_t k;

    /* The files are little-endian, as is every machine this runs on. */
    if (fread(&node_count, 4, 1, p1) != 1 || fread(&child_set_count, 8, 1, p2) != 1 || fread(&k, 4, 1, p3) != 1)
        die("truncated header in", dir);
    if (node_count == 0 || node_count > CHILD_MASK || child_set_count == 0 || child_set_count > CHILD_SET_MASK + 1 ||
        k > node_count)
        die("implausible header counts in", dir);

    part_one = calloc((size_t)node_count + 1, 4);
    part_two = calloc(child_set_count, 8);
    tracking = calloc((size_t)node_count + 1, 4);
    if (!part_one || !part_two || !tracking)
        die("out of memory", NULL);
    if (fread(part_one + 1, 4, node_count, p1) != node_count || fread(part_two, 8, child_set_count, p2) != child_set_count ||
        fread(tracking + 1, 4, k, p3) != k)
        die("truncated body in", dir);
    for (uint32_t i = k + 1; i <= node_count; i++) {
        int byte = fgetc(p4);
        if (byte == EOF)
            die("truncated part 4 in", dir);
        tracking[i] = (uint32_t)byte;
    }
    fclose(p1);
    fclose(p2);
    fclose(p3);
    fclose(p4);

    /* Cheap sanity: every first child and child-set index must be in range,
       so a bad file fails here rather than as a wild read in the search. */
    for (uint32_t i = 1; i <= node_count; i++) {
        uint32_t w = part_one[i];
        if ((w & CHILD_MASK) > node_count || ((w >> CHILD_SET_SHIFT) & CHILD_SET_MASK) >= child_set_count)
            die("node index out of range in", dir);
    }

    /* The start nodes 1..14 form one block, so T[1] counts every word. */
    word_count = tracking[1];
    time_stamps = calloc((size_t)word_count + 1, 4);
    if (!time_stamps)
        die("out of memory", NULL);

    for (int i = 0; i < CHARSET_SIZE; i++) {
        unsigned width = 0;
        while ((1u << width) <= (unsigned)(i + 1))
            width++;
        CHILD_MASKS[i] = ((UINT64_C(1) << width) - 1) << CHILD_SHIFT[i];
    }
}

/* Boards as validated raw letters, square_count bytes each, back to back. */
static unsigned char *read_boards(const char *path, size_t *count_out)
{
    FILE *f = fopen(path, "rb");
    size_t cap = 1 << 20, len = 0, n;
    char *text = malloc(cap + 1);
    if (!f)
        die("cannot open", path);
    while ((n = fread(text + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            cap *= 2;
            text = realloc(text, cap + 1);
            if (!text)
                die("out of memory", NULL);
        }
    }
    fclose(f);
    text[len] = '\0';

    size_t boards = 0, lines_cap = 1024;
    unsigned char *letters = malloc(lines_cap * square_count);
    char *line = text;
    long line_no = 0;
    while (*line) {
        char *end = strchr(line, '\n');
        size_t l = end ? (size_t)(end - line) : strlen(line);
        line_no++;
        while (l && (line[l - 1] == '\r' || line[l - 1] == ' ' || line[l - 1] == '\t'))
            l--;
        if (l) {
            if (l != (size_t)square_count) {
                fprintf(stderr, "adtdawg_seed000: %s:%ld: expected %d letters, got %zu\n", path, line_no, square_count, l);
                exit(2);
            }
            if (boards == lines_cap) {
                lines_cap *= 2;
                letters = realloc(letters, lines_cap * square_count);
                if (!letters)
                    die("out of memory", NULL);
            }
            for (size_t i = 0; i < l; i++) {
                int c = LETTER_CODE[(unsigned char)line[i]];
                if (c < 0) {
                    fprintf(stderr, "adtdawg_seed000: %s:%ld: letter '%c' is not in %s\n", path, line_no, line[i], CHARSET);
                    exit(2);
                }
            }
            /* Keep the raw text: turning letters into codes is the seed's
               BoardPopulate step and belongs inside the timed loop. */
            memcpy(letters + boards * square_count, line, l);
            boards++;
        }
        if (!end)
            break;
        line = end + 1;
    }
    free(text);
    *count_out = boards;
    return letters;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: %s REFERENCE_DIR BOARDS_FILE [RxC]\n", argv[0]);
        return 2;
    }
    if (argc == 4) {
        if (sscanf(argv[3], "%dx%d", &rows, &cols) != 2 || rows < 1 || cols < 1 || rows > MAX_SIDE || cols > MAX_SIDE)
            die("bad board shape (want RxC, at most 8x8)", argv[3]);
        square_count = rows * cols;
    }

    memset(LETTER_CODE, -1, sizeof LETTER_CODE);
    for (int i = 0; i < CHARSET_SIZE; i++) {
        LETTER_CODE[(unsigned char)CHARSET[i]] = (signed char)i;
        LETTER_CODE[(unsigned char)(CHARSET[i] - 'A' + 'a')] = (signed char)i;
    }
    for (int len = 0; len <= MAX_SQUARES; len++)
        SCORE_CARD[len] = len < 3 ? 0 : len < 5 ? 1 : len == 5 ? 2 : len == 6 ? 3 : len == 7 ? 5 : 11;

    load_lexicon(argv[1]);
    board_init();

    size_t count;
    unsigned char *boards = read_boards(argv[2], &count);
    unsigned *scores = malloc((count ? count : 1) * sizeof *scores);

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (size_t b = 0; b < count; b++) {
        board_populate(boards + b * square_count);
        /* Stamp 0 is what calloc left in every slot, so boards use 1, 2, ... */
        scores[b] = board_score((uint32_t)b + 1);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);

    double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    for (size_t b = 0; b < count; b++)
        printf("%u\n", scores[b]);
    fprintf(stderr, "boards %zu seconds %.6f boards_per_s %.1f\n", count, seconds, seconds > 0 ? (double)count / seconds : 0.0);

    free(scores);
    free(boards);
    free(time_stamps);
    free(part_one);
    free(part_two);
    free(tracking);
    return 0;
}
