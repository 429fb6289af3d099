"""attention-lab's manim scenes. Importing this package does not import manim."""
