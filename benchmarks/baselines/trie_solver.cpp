// trie_solver.cpp -- baseline: a classic fast C++ trie Boggle solver.
//
// Our own implementation of the design in the danvk "Boggle" blog series
// (seed 004 and the post after it), tuned the way a competent C++
// programmer would tune it, so the benchmark has a fair, strong
// trie-based opponent:
//
//   - a 26-way trie: every node holds a child slot per letter, so "does this
//     letter continue a word" and "descend" are one array read each;
//   - nodes live in one arena (a std::vector) and refer to each other by
//     32-bit index rather than by pointer: half the memory of a pointer
//     trie, so more of the hot top of the trie stays in cache;
//   - 'q' on the board stands for the "qu" die: words are stored with "qu"
//     folded to 'q', words with a 'q' not followed by 'u' are dropped, and a
//     'q' square adds 2 to the word length for the score card;
//   - duplicate words are removed with a mark on each trie node (the number
//     of the board being scored) instead of a set of found words, so nothing
//     is cleared between boards;
//   - a plain recursive depth-first search over precomputed neighbour lists;
//     a square in use on the current path is marked by writing an extra
//     "letter" 26 into it, whose child slot is always empty, so the search
//     needs no separate used-flag test per neighbour.
//
// Usage:  trie_solver WORDLIST BOARDS_FILE
//   WORDLIST: one word per line, any case, CRLF tolerated; words shorter
//   than 3 letters or with characters outside a-z are ignored.
//   BOARDS_FILE: one board per line, letters row by row; the side is the
//   square root of the line length (4x4, 5x5, ... up to 8x8).
// Output: one score per line on stdout; on stderr
//   "boards N seconds S boards_per_s R", timing only the scoring loop
//   (building the trie and reading the boards are not timed).

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kLetters = 26;
constexpr int kQ = 'q' - 'a';
constexpr int kInUse = kLetters;  // board value of a square already on the path
constexpr int kMaxSide = 8;
constexpr int kMaxCells = kMaxSide * kMaxSide;
// A path of kMaxCells squares, each possibly "qu", spells at most this many letters.
constexpr int kMaxLength = 2 * kMaxCells;

struct Node {
    uint32_t child[kLetters + 1];  // arena index of the child, 0 = none (0 is the root);
                                   // slot kInUse is never set
    uint32_t mark;             // number of the last board that found this word
    bool is_word;
};

class Trie {
  public:
    Trie() : nodes_(1) {}

    // Adds a word in folded form ("qu" already turned into 'q').
    void Add(const std::string& folded) {
        uint32_t n = 0;
        for (char ch : folded) {
            int c = ch - 'a';
            if (!nodes_[n].child[c]) {
                // Read the index before push_back: the push may move the arena.
                uint32_t fresh = static_cast<uint32_t>(nodes_.size());
                nodes_.push_back(Node{});
                nodes_[n].child[c] = fresh;
            }
            n = nodes_[n].child[c];
        }
        if (!nodes_[n].is_word) ++words_;
        nodes_[n].is_word = true;
    }

    Node* nodes() { return nodes_.data(); }
    size_t size() const { return nodes_.size(); }
    size_t words() const { return words_; }

  private:
    std::vector<Node> nodes_;
    size_t words_ = 0;
};

// Boggle word-list rules as in the blog: lower case, 3+ letters, a-z only,
// every 'q' followed by 'u' (then folded to 'q'). Returns false to skip.
bool FoldWord(std::string word, std::string* folded) {
    while (!word.empty() && (word.back() == '\r' || word.back() == ' ' || word.back() == '\t')) word.pop_back();
    size_t start = 0;
    while (start < word.size() && (word[start] == ' ' || word[start] == '\t')) ++start;
    word.erase(0, start);
    if (word.size() < 3) return false;
    folded->clear();
    for (size_t i = 0; i < word.size(); ++i) {
        char ch = word[i];
        if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
        if (ch < 'a' || ch > 'z') return false;
        folded->push_back(ch);
        if (ch == 'q') {
            char next = i + 1 < word.size() ? word[i + 1] : '\0';
            if (next != 'u' && next != 'U') return false;
            ++i;  // the 'u' rides on the Qu die
        }
    }
    return true;
}

struct Geometry {
    int side = 0;
    int cells = 0;
    int count[kMaxCells];
    int neighbour[kMaxCells][8];

    explicit Geometry(int s) : side(s), cells(s * s) {
        for (int r = 0; r < side; ++r)
            for (int c = 0; c < side; ++c) {
                int i = r * side + c;
                count[i] = 0;
                for (int dr = -1; dr <= 1; ++dr)
                    for (int dc = -1; dc <= 1; ++dc) {
                        int rr = r + dr, cc = c + dc;
                        if ((dr || dc) && rr >= 0 && rr < side && cc >= 0 && cc < side)
                            neighbour[i][count[i]++] = rr * side + cc;
                    }
            }
    }
};

class Boggler {
  public:
    explicit Boggler(Trie* trie) : nodes_(trie->nodes()) {
        for (int len = 0; len <= kMaxLength; ++len)
            card_[len] = len < 3 ? 0 : len < 5 ? 1 : len == 5 ? 2 : len == 6 ? 3 : len == 7 ? 5 : 11;
        for (int s = 1; s <= kMaxSide; ++s) geometry_.emplace_back(s);
    }

    // `letters` are 0..25, side*side of them.
    int Score(const uint8_t* letters, int side) {
        geo_ = &geometry_[side - 1];
        for (int i = 0; i < geo_->cells; ++i) board_[i] = letters[i];
        // Mark 0 is what every node starts with, so boards count from 1.
        ++run_;
        score_ = 0;
        const Node& root = nodes_[0];
        for (int i = 0; i < geo_->cells; ++i)
            if (uint32_t c = root.child[board_[i]]) Solve(i, 0, &nodes_[c]);
        return score_;
    }

  private:
    // `t` is the trie node reached by stepping onto `cell`.
    void Solve(int cell, int len, Node* t) {
        const uint8_t letter = board_[cell];
        board_[cell] = kInUse;
        len += letter == kQ ? 2 : 1;
        if (t->is_word && t->mark != run_) {
            t->mark = run_;
            score_ += card_[len];
        }
        const int n = geo_->count[cell];
        const int* nb = geo_->neighbour[cell];
        for (int k = 0; k < n; ++k) {
            int next = nb[k];
            if (uint32_t c = t->child[board_[next]]) Solve(next, len, &nodes_[c]);
        }
        board_[cell] = letter;
    }

    Node* nodes_;
    std::vector<Geometry> geometry_;
    const Geometry* geo_ = nullptr;
    uint8_t board_[kMaxCells];  // letter codes, or kInUse on the current path
    int card_[kMaxLength + 1];
    uint32_t run_ = 0;
    int score_ = 0;
};

[[noreturn]] void Die(const std::string& msg) {
    std::cerr << "trie_solver: " << msg << "\n";
    std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: " << argv[0] << " WORDLIST BOARDS_FILE\n";
        return 2;
    }

    Trie trie;
    {
        std::ifstream in(argv[1], std::ios::binary);
        if (!in) Die(std::string("cannot open ") + argv[1]);
        std::string line, folded;
        bool first = true;
        while (std::getline(in, line)) {
            if (first && line.size() >= 3 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
            first = false;
            if (FoldWord(line, &folded)) trie.Add(folded);
        }
    }
    if (trie.words() == 0) Die(std::string("no words in ") + argv[1]);
    std::fprintf(stderr, "trie: %zu words, %zu nodes\n", trie.words(), trie.size());

    // Boards as letter codes plus their side, all read before timing.
    std::vector<uint8_t> letters;
    std::vector<int> sides;
    {
        std::ifstream in(argv[2], std::ios::binary);
        if (!in) Die(std::string("cannot open ") + argv[2]);
        std::string line;
        long line_no = 0;
        while (std::getline(in, line)) {
            ++line_no;
            while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
            if (line.empty()) continue;
            int side = static_cast<int>(std::lround(std::sqrt(static_cast<double>(line.size()))));
            if (side * side != static_cast<int>(line.size()) || side > kMaxSide)
                Die(std::string(argv[2]) + ":" + std::to_string(line_no) + ": board length " +
                    std::to_string(line.size()) + " is not a square up to 8x8");
            for (char ch : line) {
                if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
                if (ch < 'a' || ch > 'z')
                    Die(std::string(argv[2]) + ":" + std::to_string(line_no) + ": not a letter: '" + ch + "'");
                letters.push_back(static_cast<uint8_t>(ch - 'a'));
            }
            sides.push_back(side);
        }
    }

    Boggler boggler(&trie);
    std::vector<int> scores(sides.size());
    auto t0 = std::chrono::steady_clock::now();
    size_t offset = 0;
    for (size_t b = 0; b < sides.size(); ++b) {
        scores[b] = boggler.Score(letters.data() + offset, sides[b]);
        offset += static_cast<size_t>(sides[b]) * sides[b];
    }
    auto t1 = std::chrono::steady_clock::now();
    double seconds = std::chrono::duration<double>(t1 - t0).count();

    std::string out;
    out.reserve(scores.size() * 6);
    for (int s : scores) {
        out += std::to_string(s);
        out += '\n';
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fprintf(stderr, "boards %zu seconds %.6f boards_per_s %.1f\n", sides.size(), seconds,
                 seconds > 0 ? sides.size() / seconds : 0.0);
    return 0;
}
