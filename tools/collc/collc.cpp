//===- collc.cpp - the collc driver ---------------------------------------===//
int main() { return 0; }
