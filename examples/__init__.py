"""Examples of gengrad (each a runnable script with main(argv=None)) and their data."""
